-- push_dispatcher_heartbeat: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

-- Renews p_dispatcher's row for p_lease_ms from now, unless it has expired
-- already (then alive is false: the caller has stopped its requests and
-- registers again; an expired row is never brought back, so a claim
-- recovered from it stays recovered). Then recovers the claims of every
-- expired row, queue by queue (each statement touches one queue's rows, as
-- a claim does), skipping rows a late outcome is writing (the next
-- heartbeat takes them), and deletes rows expired a minute ago with no
-- claim left (a claim is made only under a live row, within a statement: a
-- minute leaves no claim of it still to commit). The recovery runs in a
-- subtransaction: should it fail, the renewal stands and a warning is
-- logged (its claims then wait for the next heartbeat, or their deadline).
-- Returns whether p_dispatcher is alive and the queues whose claims it
-- recovered.
CREATE OR REPLACE FUNCTION push_dispatcher_heartbeat(p_dispatcher bigint, p_lease_ms float8)
RETURNS TABLE (alive boolean, recovered_queues integer[])
LANGUAGE plpgsql
AS $$
DECLARE
  v_alive  boolean;
  v_dead   int8[];
  v_queue  integer;
  v_n      integer;
  v_queues integer[] := '{}';
BEGIN
  UPDATE push_dispatchers d SET heartbeat_at = now(), expires_at = now() + p_lease_ms * interval '1 millisecond'
   WHERE d.id = p_dispatcher AND d.expires_at > now();
  v_alive := FOUND;
  SELECT array_agg(d.id) INTO v_dead FROM push_dispatchers d WHERE d.expires_at <= now();
  IF v_dead IS NOT NULL THEN
    BEGIN
      FOR v_queue IN SELECT DISTINCT t.queue_id FROM tasks t WHERE t.dispatched_at IS NOT NULL AND t.claimed_by = ANY (v_dead) LOOP
        WITH picked AS (
          SELECT t.name FROM tasks t
           WHERE t.queue_id = v_queue AND t.dispatched_at IS NOT NULL AND t.claimed_by = ANY (v_dead)
             FOR UPDATE SKIP LOCKED
        )
        UPDATE tasks t SET eta = t.dispatched_at, dispatched_at = NULL, claimed_by = NULL
          FROM picked p
         WHERE t.queue_id = v_queue AND t.name = p.name;
        GET DIAGNOSTICS v_n = ROW_COUNT;
        IF v_n > 0 THEN
          v_queues := v_queues || v_queue;
        END IF;
      END LOOP;
      DELETE FROM push_dispatchers d
       WHERE d.expires_at < now() - interval '1 minute'
         AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.dispatched_at IS NOT NULL AND t.claimed_by = d.id);
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'push_dispatcher_heartbeat: recovering the claims of expired dispatchers failed: % (%)', SQLERRM, SQLSTATE;
      v_queues := '{}';
    END;
  END IF;
  RETURN QUERY SELECT v_alive, v_queues;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION push_dispatcher_heartbeat(bigint, float8) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION push_dispatcher_heartbeat(bigint, float8) FROM PUBLIC;
