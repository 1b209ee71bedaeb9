-- tombstone_retention: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

-- How long a deleted task's name stays held. The service writes its
-- setting (TASKQUEUE_TOMBSTONE_DAYS) here at start-up; 7 days until then.
CREATE OR REPLACE FUNCTION tombstone_retention() RETURNS interval
LANGUAGE sql STABLE
SET search_path FROM CURRENT
AS $$
  SELECT coalesce((SELECT value FROM service_settings WHERE name = 'tombstone_retention_ms'), 604800000)
         * interval '1 millisecond'
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION tombstone_retention() SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION tombstone_retention() FROM PUBLIC;
