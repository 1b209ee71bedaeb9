-- tasks_after_delete: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.
-- First in sql/0004, whose trigger calls it (released; kept there as history, never edited).

CREATE OR REPLACE FUNCTION tasks_after_delete() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
BEGIN
  INSERT INTO queue_storage AS s (queue_id, shard, task_count, byte_count)
  SELECT o.queue_id, (pg_backend_pid() % 32)::smallint, -count(*), -sum(o.size_bytes)
    FROM old_tasks o GROUP BY o.queue_id
  ON CONFLICT (queue_id, shard) DO UPDATE
     SET task_count = s.task_count + EXCLUDED.task_count,
         byte_count = s.byte_count + EXCLUDED.byte_count;
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
