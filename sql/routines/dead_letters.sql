-- dead_letters: a view of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.
-- First in sql/0009 (released; kept there as history, never edited).

-- Tasks dropped by the retry limit, with their payloads.
CREATE OR REPLACE VIEW dead_letters AS
SELECT q.name                  AS queue,
       d.name                  AS task_name,
       d.tag,
       d.retry_count,
       d.enqueued_at,
       d.died_at,
       octet_length(d.payload) AS payload_bytes,
       d.payload
  FROM task_dead_letters d
  JOIN queues q ON q.id = d.queue_id;

COMMENT ON VIEW dead_letters IS 'Tasks the retry limit dropped, kept for the dead-letter retention period; redrive puts them back.';
