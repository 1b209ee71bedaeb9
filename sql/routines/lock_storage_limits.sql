-- lock_storage_limits: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.
-- First in sql/0004 (released; kept there as history, never edited).

-- Takes the transaction-scoped locks that make limit checks exact: the total
-- limit's (key 0) when one is set, then each given queue's that has a limit,
-- in id order. Every growing transaction takes them in this order, before it
-- touches the counters.
CREATE OR REPLACE FUNCTION lock_storage_limits(queue_ids integer[]) RETURNS void
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  q record;
BEGIN
  IF (SELECT value FROM service_settings WHERE name = 'total_storage_limit_bytes') IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(storage_lock_class(), 0);
  END IF;
  FOR q IN
    SELECT id FROM queues WHERE id = ANY (queue_ids) AND storage_limit_bytes IS NOT NULL ORDER BY id
  LOOP
    PERFORM pg_advisory_xact_lock(storage_lock_class(), q.id);
  END LOOP;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION lock_storage_limits(integer[]) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
