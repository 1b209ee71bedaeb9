-- dead_letters_after_truncate: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

CREATE OR REPLACE FUNCTION dead_letters_after_truncate() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  DELETE FROM dead_letter_counts;
  RETURN NULL;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION dead_letters_after_truncate() SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION dead_letters_after_truncate() FROM PUBLIC;

CREATE OR REPLACE TRIGGER dead_letters_after_truncate
AFTER TRUNCATE ON task_dead_letters
FOR EACH STATEMENT EXECUTE FUNCTION dead_letters_after_truncate();
