-- 0009: views for operators.
--
-- Read-only views over the service's tables with readable column names, for
-- psql, dashboards and ad hoc questions (examples in docs/operations.md).
-- They join queue ids to queue names and spell out what the one-timestamp
-- model leaves implicit: a task with eta in the past is available; with eta
-- ahead it is leased (it has been leased before: retry_count > 0, and eta is
-- the lease expiry) or delayed (never leased: eta is its schedule time).
-- Every per-queue figure is an index lookup by queue id (LATERAL), so
-- filtering queue_stats by queue reads only that queue's rows.

-- Tasks of one queue whose eta lies ahead, leased (retry_count > 0) or
-- delayed (never leased): an index range scan of (queue_id, eta) > now().
-- A function, because its settings are the point: per queue the planner
-- prices that range as random page reads and, once a good share of the
-- table lies ahead, picks a scan of the WHOLE table instead, once per queue
-- (measured: 11 queues, 100k tasks, 20% ahead: 11 sequential scans, 1 s).
-- The index range reads only the rows ahead of now in the one queue.
CREATE FUNCTION queue_future_tasks(queue integer, OUT leased bigint, OUT delayed bigint)
LANGUAGE sql STABLE
SET search_path FROM CURRENT
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
  SELECT count(*) FILTER (WHERE retry_count > 0), count(*) FILTER (WHERE retry_count = 0)
    FROM tasks WHERE queue_id = queue AND eta > now()
$$;

-- One row per queue ever configured (active = false once removed from the
-- configuration). TaskQueueService.overview() reads this view.
CREATE VIEW queue_stats AS
SELECT q.id                                       AS queue_id,
       q.name                                     AS queue,
       q.mode,
       q.active,
       q.paused,
       q.paused_at,
       s.tasks                                    AS total_tasks,
       -- The counters of 0004 are exact in any one snapshot, so only the
       -- (usually few) tasks with a future eta need counting.
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
       q.lease_rate_seconds
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
        SELECT count(*) AS dead_letters FROM task_dead_letters WHERE queue_id = q.id) d;

COMMENT ON VIEW queue_stats IS 'Per queue: paused, tasks by state, oldest available age, leases in the last minute/hour, dead letters, storage and limits.';

-- Tasks under a lease that has not run out.
CREATE VIEW leased_tasks AS
SELECT q.name                     AS queue,
       t.name                     AS task_name,
       t.tag,
       t.retry_count              AS lease_count,
       t.eta                      AS lease_expires_at,
       t.eta - now()              AS lease_remaining,
       t.enqueued_at,
       octet_length(t.payload)    AS payload_bytes
  FROM tasks t
  JOIN queues q ON q.id = t.queue_id
 WHERE t.eta > now() AND t.retry_count > 0;

COMMENT ON VIEW leased_tasks IS 'Tasks whose lease has not expired yet; lease_count is the task''s retry count.';

-- Names still held after a delete, a purge or the retry limit.
CREATE VIEW recent_tombstones AS
SELECT q.name            AS queue,
       t.name            AS task_name,
       t.reason,
       t.deleted_at,
       now() - t.deleted_at AS deleted_ago,
       t.retry_count
  FROM task_tombstones t
  JOIN queues q ON q.id = t.queue_id;

COMMENT ON VIEW recent_tombstones IS 'Names held after a delete (reason deleted), a purge (purged) or the retry limit (retry_limit).';

-- Tasks dropped by the retry limit, with their payloads.
CREATE VIEW dead_letters AS
SELECT q.name                  AS queue,
       d.name                  AS task_name,
       d.tag,
       d.retry_count,
       d.enqueued_at,
       d.died_at,
       octet_length(d.payload) AS payload_bytes,
       d.payload
  FROM task_dead_letters d
  JOIN queues q ON q.id = d.queue_id;

COMMENT ON VIEW dead_letters IS 'Tasks the retry limit dropped, kept for the dead-letter retention period; redrive puts them back.';
