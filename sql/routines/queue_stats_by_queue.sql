-- queue_stats_by_queue: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

-- The rows of queue_stats (sql/routines/queue_stats.sql), the same figures
-- by the same reads, a statement per shard of `tasks` (the queues one Citus
-- worker holds together). On a Citus coordinator migrate makes queue_stats
-- read this function (src/store/migrate/citus-setup.ts): Citus cannot plan
-- the view's per-queue LATERAL reads, which join the reference table
-- `queues` to the distributed tables, and a function in the view
-- (queue_future_tasks) cannot read a distributed table from a statement
-- Citus pushes to a worker. Here every read also names the shard's queue
-- ids as values, so Citus routes each statement whole to the worker that
-- holds the shard; this function runs on the coordinator. The service reads
-- the overview the same way (src/store/queue-overview.ts). On PostgreSQL
-- the view keeps its one statement, and nothing calls this.
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
  ids integer[];
BEGIN
  -- EXECUTE: get_shard_id_for_distribution_column is Citus's, and each
  -- statement is planned with the ids' values, so Citus prunes to one shard.
  FOR ids IN EXECUTE 'SELECT array_agg(id ORDER BY id) FROM queues
                       GROUP BY get_shard_id_for_distribution_column(''tasks''::regclass, id)' LOOP
    RETURN QUERY EXECUTE $q$
      SELECT q.id, q.name, q.mode, q.active, q.paused, q.paused_at,
             s.tasks, s.tasks - f.leased - f.delayed, f.leased, f.delayed,
             o.eta, extract(epoch from now() - o.eta)::float8,
             h.last_minute, h.last_hour, d.dead_letters, s.bytes,
             q.storage_limit_bytes, q.max_leases, q.lease_rate_calls, q.lease_rate_seconds,
             f.long_leases
        FROM queues q
       CROSS JOIN LATERAL (
             SELECT coalesce(sum(task_count), 0)::int8 AS tasks, coalesce(sum(byte_count), 0)::int8 AS bytes
               FROM queue_storage WHERE queue_id = q.id AND queue_id = ANY ($1)) s
       CROSS JOIN LATERAL (
             SELECT count(*) FILTER (WHERE retry_count > 0) AS leased, count(*) FILTER (WHERE retry_count = 0) AS delayed,
                    count(*) FILTER (WHERE retry_count > 0 AND push IS NULL AND eta > now() + interval '15 minutes') AS long_leases
               FROM tasks WHERE queue_id = q.id AND queue_id = ANY ($1) AND eta > now()) f
        LEFT JOIN LATERAL (
             SELECT eta FROM tasks WHERE queue_id = q.id AND queue_id = ANY ($1) ORDER BY eta LIMIT 1) o ON o.eta <= now()
       CROSS JOIN LATERAL (
             SELECT coalesce(sum(task_count) FILTER (WHERE leased_at > now() - interval '1 minute'), 0)::int8 AS last_minute,
                    coalesce(sum(task_count), 0)::int8 AS last_hour
               FROM lease_history WHERE queue_id = q.id AND queue_id = ANY ($1) AND leased_at > now() - interval '1 hour') h
       CROSS JOIN LATERAL (
             SELECT coalesce(sum(dead_letters), 0)::int8 AS dead_letters
               FROM dead_letter_counts WHERE queue_id = q.id AND queue_id = ANY ($1)) d
       WHERE q.id = ANY ($1)
    $q$ USING ids;
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
