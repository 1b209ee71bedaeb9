-- tasks_after_delete: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.
-- First in sql/0004, whose trigger calls it (released; kept there as history, never edited).

-- The statement's deleted rows are read once, in a local aggregate by
-- queue; each counter upsert is then keyed by one queue_id. On Citus the
-- trigger fires on a shard of tasks, where a statement that read the
-- transition table and wrote another distributed table cannot run; one
-- keyed by a queue_id is routed to the co-located shard (docs/scaling.md).

CREATE OR REPLACE FUNCTION tasks_after_delete() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  q record;
BEGIN
  FOR q IN SELECT o.queue_id, count(*) AS removed, sum(o.size_bytes) AS bytes FROM old_tasks o GROUP BY o.queue_id LOOP
    INSERT INTO queue_storage AS s (queue_id, shard, task_count, byte_count)
    VALUES (q.queue_id, (pg_backend_pid() % 32)::smallint, -q.removed, -q.bytes)
    ON CONFLICT (queue_id, shard) DO UPDATE
       SET task_count = s.task_count + EXCLUDED.task_count,
           byte_count = s.byte_count + EXCLUDED.byte_count;
  END LOOP;
  RETURN NULL;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION tasks_after_delete() SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
