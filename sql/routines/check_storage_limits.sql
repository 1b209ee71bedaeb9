-- check_storage_limits: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.
-- First in sql/0004 (released; kept there as history, never edited).

-- Raises TQ002 when a given queue, or all queues together, hold more than
-- their limit. Called after the counters changed, under lock_storage_limits.
CREATE OR REPLACE FUNCTION check_storage_limits(queue_ids integer[]) RETURNS void
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  q           record;
  total_limit bigint;
  used        bigint;
BEGIN
  FOR q IN
    SELECT id, name, storage_limit_bytes FROM queues WHERE id = ANY (queue_ids) AND storage_limit_bytes IS NOT NULL
  LOOP
    SELECT coalesce(sum(byte_count), 0) INTO used FROM queue_storage WHERE queue_id = q.id;
    IF used > q.storage_limit_bytes THEN
      RAISE EXCEPTION 'queue "%" would hold % bytes, over its storage limit of % bytes', q.name, used, q.storage_limit_bytes
        USING ERRCODE = 'TQ002', DETAIL = q.name;
    END IF;
  END LOOP;
  SELECT value INTO total_limit FROM service_settings WHERE name = 'total_storage_limit_bytes';
  IF total_limit IS NOT NULL THEN
    SELECT coalesce(sum(byte_count), 0) INTO used FROM queue_storage;
    IF used > total_limit THEN
      RAISE EXCEPTION 'all queues would hold % bytes, over the total storage limit of % bytes', used, total_limit
        USING ERRCODE = 'TQ002', DETAIL = '';
    END IF;
  END IF;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION check_storage_limits(integer[]) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
