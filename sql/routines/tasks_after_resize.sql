-- tasks_after_resize: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.
-- First in sql/0004, whose trigger calls it (released; kept there as history, never edited).

-- A tag change (PATCH) changes a task's size; growing is checked against the
-- limits like an add. Leases never set tag or payload, so this row trigger
-- does not fire for them.
CREATE OR REPLACE FUNCTION tasks_after_resize() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  grows boolean := NEW.size_bytes > OLD.size_bytes;
BEGIN
  IF grows THEN
    PERFORM lock_storage_limits(ARRAY[NEW.queue_id]);
  END IF;
  INSERT INTO queue_storage AS s (queue_id, shard, task_count, byte_count)
  VALUES (NEW.queue_id, (pg_backend_pid() % 32)::smallint, 0, NEW.size_bytes - OLD.size_bytes)
  ON CONFLICT (queue_id, shard) DO UPDATE
     SET byte_count = s.byte_count + EXCLUDED.byte_count;
  IF grows THEN
    PERFORM check_storage_limits(ARRAY[NEW.queue_id]);
  END IF;
  RETURN NULL;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION tasks_after_resize() SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
