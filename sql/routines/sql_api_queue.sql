-- sql_api_queue: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

-- The queue a call names, or the error the service gives for it.
CREATE OR REPLACE FUNCTION sql_api_queue(queue text, pull_only boolean, action text) RETURNS queues
LANGUAGE plpgsql STABLE
SET search_path FROM CURRENT
AS $$
DECLARE
  q queues;
BEGIN
  SELECT * INTO q FROM queues WHERE queues.name = queue AND active;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'unknown queue: "%" is not a configured queue', queue
      USING ERRCODE = 'TQ003', DETAIL = coalesce(queue, ''), HINT = 'UNKNOWN_QUEUE';
  END IF;
  IF pull_only AND q.mode <> 'pull' THEN
    RAISE EXCEPTION 'queue mode: cannot % tasks of push queue "%"; only pull queues can be leased', action, queue
      USING ERRCODE = 'TQ004', DETAIL = queue, HINT = 'INVALID_QUEUE_MODE';
  END IF;
  RETURN q;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION sql_api_queue(text, boolean, text) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION sql_api_queue(text, boolean, text) FROM PUBLIC;
