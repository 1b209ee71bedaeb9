-- GENERATED from deliveredStatement (src/store/push/push-delivered.ts, src/store/sql-api/push-claim-function.ts) by `npm run generate:sql-api`: do not edit by hand.

CREATE OR REPLACE FUNCTION claim_push_tasks_after_delivery(p_queue integer, p_rate float8, p_bucket float8, p_max_concurrent integer,
                                                           p_limit integer, p_deadline_ms float8, p_margin_ms float8,
                                                           p_names text[], p_claims_usec int8[], p_tombstones boolean[],
                                                           p_dispatcher bigint)
RETURNS TABLE (name text, payload bytea, push jsonb, retry_count integer, execution_count integer,
               eta_usec int8, claim_usec int8, first_try_usec int8, last_status integer, last_error text,
               now_usec int8, wait_ms float8, delivered boolean)
LANGUAGE plpgsql
AS $$
-- The output columns share names with table columns (name, retry_count): a bare name means the column.
#variable_conflict use_column
DECLARE
  r record;
BEGIN
  IF cardinality(p_names) > 0 THEN
    -- The service's delete of delivered tasks (src/store/push/push-delivered.ts),
    -- generated from its builder: one row per task deleted (delivered true,
    -- only name set).
    FOR r IN
      /* push_delivered */
          with input as (
            select i.name, timestamptz 'epoch' + (i.usec / 1000000) * interval '1 second'
                                               + (i.usec % 1000000) * interval '1 microsecond' as claim, i.tombstone
              from unnest(p_names::text[], p_claims_usec::int8[], p_tombstones::bool[]) as i (name, usec, tombstone)
          ), gone as (
            delete from "tasks" t using input i
             where t.queue_id = p_queue and t.name = i.name and t.eta = i.claim
            returning t.name, t.retry_count, i.tombstone
          ), held as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select p_queue::int4, name, 'deleted', retry_count from gone where tombstone
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          )
          select name from gone
    LOOP
      name := r.name;
      delivered := true;
      RETURN NEXT;
    END LOOP;
  END IF;
  -- A later statement of this transaction: its snapshot sees the rows above gone.
  RETURN QUERY
  SELECT c.name, c.payload, c.push, c.retry_count, c.execution_count, c.eta_usec, c.claim_usec, c.first_try_usec,
         c.last_status, c.last_error, c.now_usec, c.wait_ms, false
    FROM claim_push_tasks(p_queue, p_rate, p_bucket, p_max_concurrent, p_limit, p_deadline_ms, p_margin_ms, p_dispatcher) c;
END
$$;

CREATE OR REPLACE FUNCTION claim_push_tasks_after_delivery(p_queue integer, p_rate float8, p_bucket float8, p_max_concurrent integer,
                                                           p_limit integer, p_deadline_ms float8, p_margin_ms float8,
                                                           p_names text[], p_claims_usec int8[], p_tombstones boolean[])
RETURNS TABLE (name text, payload bytea, push jsonb, retry_count integer, execution_count integer,
               eta_usec int8, claim_usec int8, first_try_usec int8, last_status integer, last_error text,
               now_usec int8, wait_ms float8, delivered boolean)
LANGUAGE sql
AS $$
  SELECT * FROM claim_push_tasks_after_delivery(p_queue, p_rate, p_bucket, p_max_concurrent, p_limit, p_deadline_ms,
                                                p_margin_ms, p_names, p_claims_usec, p_tombstones, NULL::int8)
$$;

-- CREATE OR REPLACE replaces a function's SET clauses: the schema's fixed
-- search_path again (docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION claim_push_tasks_after_delivery(integer, float8, float8, integer, integer, float8, float8, text[], int8[], boolean[], bigint) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  EXECUTE format('ALTER FUNCTION claim_push_tasks_after_delivery(integer, float8, float8, integer, integer, float8, float8, text[], int8[], boolean[]) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION claim_push_tasks_after_delivery(integer, float8, float8, integer, integer, float8, float8, text[], int8[], boolean[], bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION claim_push_tasks_after_delivery(integer, float8, float8, integer, integer, float8, float8, text[], int8[], boolean[]) FROM PUBLIC;
