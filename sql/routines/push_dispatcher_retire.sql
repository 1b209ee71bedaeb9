-- push_dispatcher_retire: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

-- A process's clean shutdown, after its requests ended: its row expires now
-- and its claims left (requests abandoned at the end of the grace) are due
-- again at once; the row goes when none is left. Returns the queues of the
-- claims it released. Only after the process stopped claiming: a claim of
-- it committing later would lose its row.
CREATE OR REPLACE FUNCTION push_dispatcher_retire(p_dispatcher bigint)
RETURNS TABLE (released_queues integer[])
LANGUAGE plpgsql
AS $$
DECLARE
  v_queues integer[];
BEGIN
  UPDATE push_dispatchers d SET expires_at = least(d.expires_at, now()) WHERE d.id = p_dispatcher;
  WITH released AS (
    UPDATE tasks t SET eta = t.dispatched_at, dispatched_at = NULL, claimed_by = NULL
     WHERE t.dispatched_at IS NOT NULL AND t.claimed_by = p_dispatcher
    RETURNING t.queue_id
  )
  SELECT coalesce(array_agg(DISTINCT r.queue_id), '{}') INTO v_queues FROM released r;
  -- Two statements, not one DELETE with NOT EXISTS: on Citus a DELETE from
  -- a reference table may not read a distributed one.
  IF NOT EXISTS (SELECT 1 FROM tasks t WHERE t.dispatched_at IS NOT NULL AND t.claimed_by = p_dispatcher) THEN
    DELETE FROM push_dispatchers d WHERE d.id = p_dispatcher;
  END IF;
  RETURN QUERY SELECT v_queues;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION push_dispatcher_retire(bigint) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION push_dispatcher_retire(bigint) FROM PUBLIC;
