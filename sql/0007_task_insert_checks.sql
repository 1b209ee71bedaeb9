-- 0007: what every add must pass, and the wake-up of waiting leases.
--
-- After an insert into tasks, one statement-level trigger:
-- * refuses names still held by a tombstone (TQ001 -> TOMBSTONED_TASK);
-- * takes the storage-limit locks, adds to the sharded counters and checks
--   the limits (0004; TQ002 -> STORAGE_LIMIT_EXCEEDED);
-- * notifies channel taskqueue_tasks, payload '<schema>:<queue id>', for
--   queues that got tasks leasable at once and that a server is waiting on
--   (queue_waiters, 0005). Each server process keeps one LISTEN connection;
--   waiters also re-check once a second, so a lost notification (or a lease
--   that simply expires) delays a wake-up by at most that.
-- In the trigger, so the rules hold for any writer, not only this service.

CREATE FUNCTION tasks_after_insert() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  held      record;
  queue_ids integer[];
BEGIN
  SELECT n.name INTO held
    FROM new_tasks n JOIN task_tombstones t ON t.queue_id = n.queue_id AND t.name = n.name
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'task name "%" belongs to a recently deleted task and is still held', held.name
      USING ERRCODE = 'TQ001', DETAIL = held.name;
  END IF;

  SELECT array_agg(DISTINCT queue_id) INTO queue_ids FROM new_tasks;
  PERFORM lock_storage_limits(queue_ids);

  INSERT INTO queue_storage AS s (queue_id, shard, task_count, byte_count)
  SELECT n.queue_id, (pg_backend_pid() % 32)::smallint, count(*), sum(n.size_bytes)
    FROM new_tasks n GROUP BY n.queue_id
  ON CONFLICT (queue_id, shard) DO UPDATE
     SET task_count = s.task_count + EXCLUDED.task_count,
         byte_count = s.byte_count + EXCLUDED.byte_count;

  PERFORM check_storage_limits(queue_ids);

  -- Only queues someone waits on (sql/0010); NOTIFY folds identical payloads.
  PERFORM pg_notify('taskqueue_tasks', current_schema() || ':' || n.queue_id)
     FROM (SELECT DISTINCT queue_id FROM new_tasks WHERE eta <= now()) n
     JOIN queue_waiters w ON w.queue_id = n.queue_id AND w.until > now();
  RETURN NULL;
END
$$;

CREATE TRIGGER tasks_after_insert
AFTER INSERT ON tasks
REFERENCING NEW TABLE AS new_tasks
FOR EACH STATEMENT EXECUTE FUNCTION tasks_after_insert();
