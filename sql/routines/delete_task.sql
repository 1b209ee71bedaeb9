-- delete_task: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

CREATE OR REPLACE FUNCTION delete_task(queue text, name text)
RETURNS boolean
LANGUAGE sql VOLATILE SECURITY DEFINER
AS $$ SELECT (delete_tasks(queue, ARRAY[name]))[1] $$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION delete_task(text, text) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION delete_task(text, text) FROM PUBLIC;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_schema() || '_consumer') THEN
    EXECUTE format('GRANT EXECUTE ON FUNCTION %I.delete_task(text, text) TO %I', current_schema(), current_schema() || '_consumer');
  END IF;
END
$$;
