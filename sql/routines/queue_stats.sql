-- queue_stats: a view of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.
-- First in sql/0009 (released; kept there as history, never edited).

-- One row per queue ever configured (active = false once removed from the
-- configuration). TaskQueueService.overview() reads this view. Every
-- per-queue figure is an index lookup by queue id (LATERAL); dead letters
-- are summed from their counters (dead_letter_counts).
CREATE OR REPLACE VIEW queue_stats AS
SELECT q.id                                       AS queue_id,
       q.name                                     AS queue,
       q.mode,
       q.active,
       q.paused,
       q.paused_at,
       s.tasks                                    AS total_tasks,
       s.tasks - f.leased - f.delayed             AS available_tasks,
       f.leased                                   AS leased_tasks,
       f.delayed                                  AS delayed_tasks,
       o.eta                                      AS oldest_available_since,
       extract(epoch from now() - o.eta)::float8  AS oldest_available_age_seconds,
       h.last_minute                              AS leased_last_minute,
       h.last_hour                                AS leased_last_hour,
       d.dead_letters,
       s.bytes                                    AS storage_bytes,
       q.storage_limit_bytes,
       q.max_leases                               AS retry_limit,
       q.lease_rate_calls,
       q.lease_rate_seconds,
       f.long_leases
  FROM queues q
 CROSS JOIN LATERAL (
        SELECT coalesce(sum(task_count), 0)::int8 AS tasks, coalesce(sum(byte_count), 0)::int8 AS bytes
          FROM queue_storage WHERE queue_id = q.id) s
 CROSS JOIN LATERAL queue_future_tasks(q.id) f
  LEFT JOIN LATERAL (
        SELECT eta FROM tasks WHERE queue_id = q.id ORDER BY eta LIMIT 1) o ON o.eta <= now()
 CROSS JOIN LATERAL (
        SELECT coalesce(sum(task_count) FILTER (WHERE leased_at > now() - interval '1 minute'), 0)::int8 AS last_minute,
               coalesce(sum(task_count), 0)::int8 AS last_hour
          FROM lease_history WHERE queue_id = q.id AND leased_at > now() - interval '1 hour') h
 CROSS JOIN LATERAL (
        SELECT coalesce(sum(dead_letters), 0)::int8 AS dead_letters FROM dead_letter_counts WHERE queue_id = q.id) d;

COMMENT ON VIEW queue_stats IS 'Per queue: paused, tasks by state, oldest available age, leases in the last minute/hour, dead letters, storage and limits, long leases.';
