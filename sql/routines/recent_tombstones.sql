-- recent_tombstones: a view of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.
-- First in sql/0009 (released; kept there as history, never edited).

-- Names still held after a delete, a purge or the retry limit.
CREATE OR REPLACE VIEW recent_tombstones AS
SELECT q.name            AS queue,
       t.name            AS task_name,
       t.reason,
       t.deleted_at,
       now() - t.deleted_at AS deleted_ago,
       t.retry_count
  FROM task_tombstones t
  JOIN queues q ON q.id = t.queue_id;

COMMENT ON VIEW recent_tombstones IS 'Names held after a delete (reason deleted), a purge (purged) or the retry limit (retry_limit).';
