-- held_by_form: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

-- Whether `name` is held by its form now: generated less than the
-- retention period ago (or later than now, from a clock ahead of ours).
CREATE OR REPLACE FUNCTION held_by_form(name text) RETURNS boolean
LANGUAGE sql STABLE
SET search_path FROM CURRENT
AS $$ SELECT coalesce(generated_name_time(name) > now() - tombstone_retention(), false) $$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION held_by_form(text) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION held_by_form(text) FROM PUBLIC;
