-- claim_push_tasks_after_delivery: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

-- Push dispatch writes its successes and claims again in one call: it
-- deletes the delivered tasks, then claims (claim_push_tasks) in the same
-- transaction, so the claim already counts those slots as free: one round
-- trip per cycle instead of two, and no slot idles between them (measured
-- with 64 requests in flight, each round trip was about a third of a cycle).
--
-- Each delete holds only while the task's eta is still its claim (a task
-- deleted, purged or claimed again meanwhile is left alone), and names that
-- need one get a tombstone. The deletes come before the bucket row's lock
-- and take no lock while waiting for it that a claim holding it could wait
-- on (claims skip locked rows), so claims of several processes cannot
-- deadlock on them. p_names, p_claims_usec (the claim: eta in microseconds
-- since the epoch) and p_tombstones describe the delivered tasks, one
-- element each. Returns one row per task deleted (delivered true, only name
-- set), then claim_push_tasks' rows (delivered false).
CREATE OR REPLACE FUNCTION claim_push_tasks_after_delivery(p_queue integer, p_rate float8, p_bucket float8, p_max_concurrent integer,
                                                p_limit integer, p_deadline_ms float8, p_margin_ms float8,
                                                p_names text[], p_claims_usec int8[], p_tombstones boolean[],
                                                p_dispatcher bigint)
RETURNS TABLE (name text, payload bytea, push jsonb, retry_count integer, execution_count integer,
               eta_usec int8, claim_usec int8, first_try_usec int8, last_status integer, last_error text,
               now_usec int8, wait_ms float8, delivered boolean)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
  IF cardinality(p_names) > 0 THEN
    RETURN QUERY
    WITH input AS (
      SELECT i.name, timestamptz 'epoch' + (i.usec / 1000000) * interval '1 second'
                                         + (i.usec % 1000000) * interval '1 microsecond' AS claim, i.tombstone
        FROM unnest(p_names, p_claims_usec, p_tombstones) AS i (name, usec, tombstone)
    ), gone AS (
      DELETE FROM tasks t USING input i
       WHERE t.queue_id = p_queue AND t.name = i.name AND t.eta = i.claim
      RETURNING t.name, t.retry_count, i.tombstone
    ), held AS (
      INSERT INTO task_tombstones (queue_id, name, reason, retry_count)
      SELECT p_queue, g.name, 'deleted', g.retry_count FROM gone g WHERE g.tombstone
      ON CONFLICT (queue_id, name) DO UPDATE
        SET deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
    )
    SELECT g.name, NULL::bytea, NULL::jsonb, NULL::int4, NULL::int4, NULL::int8, NULL::int8,
           NULL::int8, NULL::int4, NULL::text, NULL::int8, NULL::float8, true
      FROM gone g;
  END IF;
  RETURN QUERY
  SELECT c.name, c.payload, c.push, c.retry_count, c.execution_count, c.eta_usec, c.claim_usec, c.first_try_usec,
         c.last_status, c.last_error, c.now_usec, c.wait_ms, false
    FROM claim_push_tasks(p_queue, p_rate, p_bucket, p_max_concurrent, p_limit, p_deadline_ms, p_margin_ms, p_dispatcher) c;
END
$$;

-- The signature without the claiming process, for a process older than the
-- dispatchers' liveness during a rolling deploy.
CREATE OR REPLACE FUNCTION claim_push_tasks_after_delivery(p_queue integer, p_rate float8, p_bucket float8, p_max_concurrent integer,
                                                p_limit integer, p_deadline_ms float8, p_margin_ms float8,
                                                p_names text[], p_claims_usec int8[], p_tombstones boolean[])
RETURNS TABLE (name text, payload bytea, push jsonb, retry_count integer, execution_count integer,
               eta_usec int8, claim_usec int8, first_try_usec int8, last_status integer, last_error text,
               now_usec int8, wait_ms float8, delivered boolean)
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
-- The output columns share names with table columns (name, retry_count): a bare name means the column.
#variable_conflict use_column
BEGIN
  IF cardinality(p_names) > 0 THEN
    RETURN QUERY
    WITH input AS (
      -- Integer arithmetic: the claim must match eta to the microsecond.
      SELECT i.name, timestamptz 'epoch' + (i.usec / 1000000) * interval '1 second'
                                         + (i.usec % 1000000) * interval '1 microsecond' AS claim, i.tombstone
        FROM unnest(p_names, p_claims_usec, p_tombstones) AS i (name, usec, tombstone)
    ), gone AS (
      DELETE FROM tasks t USING input i
       WHERE t.queue_id = p_queue AND t.name = i.name AND t.eta = i.claim
      RETURNING t.name, t.retry_count, i.tombstone
    ), held AS (
      INSERT INTO task_tombstones (queue_id, name, reason, retry_count)
      SELECT p_queue, g.name, 'deleted', g.retry_count FROM gone g WHERE g.tombstone
      ON CONFLICT (queue_id, name) DO UPDATE
        SET deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
    )
    SELECT g.name, NULL::bytea, NULL::jsonb, NULL::int4, NULL::int4, NULL::int8, NULL::int8,
           NULL::int8, NULL::int4, NULL::text, NULL::int8, NULL::float8, true
      FROM gone g;
  END IF;
  -- A later statement of this transaction: its snapshot sees the rows above gone.
  RETURN QUERY
  SELECT c.name, c.payload, c.push, c.retry_count, c.execution_count, c.eta_usec, c.claim_usec, c.first_try_usec,
         c.last_status, c.last_error, c.now_usec, c.wait_ms, false
    FROM claim_push_tasks(p_queue, p_rate, p_bucket, p_max_concurrent, p_limit, p_deadline_ms, p_margin_ms) c;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION claim_push_tasks_after_delivery(integer, float8, float8, integer, integer, float8, float8, text[], int8[], boolean[], bigint) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  EXECUTE format('ALTER FUNCTION claim_push_tasks_after_delivery(integer, float8, float8, integer, integer, float8, float8, text[], int8[], boolean[]) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION claim_push_tasks_after_delivery(integer, float8, float8, integer, integer, float8, float8, text[], int8[], boolean[], bigint) FROM PUBLIC;
