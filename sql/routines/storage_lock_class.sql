-- storage_lock_class: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.
-- First in sql/0004 (released; kept there as history, never edited).

-- The first advisory-lock key of this schema's storage locks.
CREATE OR REPLACE FUNCTION storage_lock_class() RETURNS integer
LANGUAGE sql STABLE
SET search_path FROM CURRENT
AS $$ SELECT hashtext('taskqueue.storage:' || current_schema()) $$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION storage_lock_class() SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
