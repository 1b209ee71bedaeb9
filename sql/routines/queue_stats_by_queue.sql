-- queue_stats_by_queue: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

-- The rows of queue_stats (sql/routines/queue_stats.sql), the same figures
-- by the same reads, one statement per queue. On a Citus coordinator
-- migrate makes queue_stats read this function (src/store/migrate/citus-setup.ts):
-- Citus cannot plan the view's per-queue LATERAL reads, which join the
-- reference table `queues` to the distributed tables, and a function in the
-- view (queue_future_tasks) cannot read a distributed table from a
-- statement Citus pushes to a worker. Here each statement names its queue's
-- id as a value in every part, so Citus routes it whole to the worker that
-- holds the queue; this function runs on the coordinator. On PostgreSQL the
-- view keeps its one statement, and nothing calls this.
CREATE OR REPLACE FUNCTION queue_stats_by_queue()
RETURNS TABLE (queue_id integer, queue text, mode text, active boolean, paused boolean, paused_at timestamptz,
               total_tasks bigint, available_tasks bigint, leased_tasks bigint, delayed_tasks bigint,
               oldest_available_since timestamptz, oldest_available_age_seconds float8,
               leased_last_minute bigint, leased_last_hour bigint, dead_letters bigint, storage_bytes bigint,
               storage_limit_bytes bigint, retry_limit integer, lease_rate_calls integer, lease_rate_seconds integer,
               long_leases bigint)
LANGUAGE plpgsql STABLE
SET search_path FROM CURRENT
AS $$
DECLARE
  id integer;
BEGIN
  FOR id IN SELECT q.id FROM queues q ORDER BY q.id LOOP
    -- EXECUTE: planned with the id's value, so Citus prunes to the queue's shards.
    RETURN QUERY EXECUTE $q$
      SELECT q.id, q.name, q.mode, q.active, q.paused, q.paused_at,
             s.tasks, s.tasks - f.leased - f.delayed, f.leased, f.delayed,
             o.eta, extract(epoch from now() - o.eta)::float8,
             h.last_minute, h.last_hour, d.dead_letters, s.bytes,
             q.storage_limit_bytes, q.max_leases, q.lease_rate_calls, q.lease_rate_seconds,
             f.long_leases
        FROM queues q
       CROSS JOIN (
             SELECT coalesce(sum(task_count), 0)::int8 AS tasks, coalesce(sum(byte_count), 0)::int8 AS bytes
               FROM queue_storage WHERE queue_id = $1) s
       CROSS JOIN (
             SELECT count(*) FILTER (WHERE retry_count > 0) AS leased, count(*) FILTER (WHERE retry_count = 0) AS delayed,
                    count(*) FILTER (WHERE retry_count > 0 AND push IS NULL AND eta > now() + interval '15 minutes') AS long_leases
               FROM tasks WHERE queue_id = $1 AND eta > now()) f
        LEFT JOIN (
             SELECT eta FROM tasks WHERE queue_id = $1 ORDER BY eta LIMIT 1) o ON o.eta <= now()
       CROSS JOIN (
             SELECT coalesce(sum(task_count) FILTER (WHERE leased_at > now() - interval '1 minute'), 0)::int8 AS last_minute,
                    coalesce(sum(task_count), 0)::int8 AS last_hour
               FROM lease_history WHERE queue_id = $1 AND leased_at > now() - interval '1 hour') h
       CROSS JOIN (
             SELECT coalesce(sum(dead_letters), 0)::int8 AS dead_letters FROM dead_letter_counts WHERE queue_id = $1) d
       WHERE q.id = $1
    $q$ USING id;
  END LOOP;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION queue_stats_by_queue() SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
