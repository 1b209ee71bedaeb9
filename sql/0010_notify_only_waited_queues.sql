-- 0010: notify only queues that someone is waiting on.
--
-- NOTIFY takes a cluster-wide lock when the transaction commits, so every
-- add paid for one even when no long-poll lease was waiting anywhere, and
-- concurrent producers queued behind each other at commit (measured: adds in
-- batches of 100 from 4 producers ran at about a fifth of the raw SQL rate).
-- A server process with waiting lease calls on a queue now marks the queue
-- here, with an expiry it keeps pushing forward while it waits; the trigger
-- notifies only marked queues. Unlogged: losing the marks in a crash costs
-- at most one probe interval of wake-up latency.

CREATE UNLOGGED TABLE queue_waiters (
  queue_id integer     PRIMARY KEY,
  until    timestamptz NOT NULL
);

COMMENT ON TABLE queue_waiters IS 'Queues with waiting long-poll leases (until = mark expiry); tasks_after_insert notifies only these.';

CREATE OR REPLACE FUNCTION tasks_after_insert() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  held        record;
  q           record;
  total_limit bigint;
  used        bigint;
BEGIN
  SELECT n.name INTO held
    FROM new_tasks n JOIN task_tombstones t ON t.queue_id = n.queue_id AND t.name = n.name
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'task name "%" belongs to a recently deleted task and is still held', held.name
      USING ERRCODE = 'TQ001', DETAIL = held.name;
  END IF;

  SELECT value INTO total_limit FROM service_settings WHERE name = 'total_storage_limit_bytes';

  -- Lock before counting: the lock order (advisory lock, then counter rows)
  -- is the same in every adding transaction.
  IF total_limit IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(29809, 0);
  END IF;
  FOR q IN
    SELECT DISTINCT qu.id, qu.name, qu.storage_limit_bytes
      FROM new_tasks n JOIN queues qu ON qu.id = n.queue_id
     WHERE qu.storage_limit_bytes IS NOT NULL
     ORDER BY qu.id
  LOOP
    PERFORM pg_advisory_xact_lock(29809, q.id);
  END LOOP;

  INSERT INTO queue_storage AS s (queue_id, shard, task_count, byte_count)
  SELECT n.queue_id, (pg_backend_pid() % 32)::smallint, count(*), sum(n.size_bytes)
    FROM new_tasks n GROUP BY n.queue_id
  ON CONFLICT (queue_id, shard) DO UPDATE
     SET task_count = s.task_count + EXCLUDED.task_count,
         byte_count = s.byte_count + EXCLUDED.byte_count;

  FOR q IN
    SELECT DISTINCT qu.id, qu.name, qu.storage_limit_bytes
      FROM new_tasks n JOIN queues qu ON qu.id = n.queue_id
     WHERE qu.storage_limit_bytes IS NOT NULL
  LOOP
    SELECT coalesce(sum(byte_count), 0) INTO used FROM queue_storage WHERE queue_id = q.id;
    IF used > q.storage_limit_bytes THEN
      RAISE EXCEPTION 'queue "%" would hold % bytes, over its storage limit of % bytes', q.name, used, q.storage_limit_bytes
        USING ERRCODE = 'TQ002', DETAIL = q.name;
    END IF;
  END LOOP;

  IF total_limit IS NOT NULL THEN
    SELECT coalesce(sum(byte_count), 0) INTO used FROM queue_storage;
    IF used > total_limit THEN
      RAISE EXCEPTION 'all queues would hold % bytes, over the total storage limit of % bytes', used, total_limit
        USING ERRCODE = 'TQ002', DETAIL = '';
    END IF;
  END IF;

  -- Only queues someone waits on; NOTIFY folds identical payloads within a
  -- transaction, so one per queue.
  PERFORM pg_notify('taskqueue_tasks', current_schema() || ':' || n.queue_id)
     FROM (SELECT DISTINCT queue_id FROM new_tasks WHERE eta <= now()) n
     JOIN queue_waiters w ON w.queue_id = n.queue_id AND w.until > now();
  RETURN NULL;
END
$$;
