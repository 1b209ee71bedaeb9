-- 0011: one definition of the storage-limit locking and checking, used by
-- every trigger that can grow stored bytes.
--
-- Two gaps closed:
-- * A tag change (PATCH) that made a task larger updated the counters but
--   never checked the limits; many such changes could pass a limit by up to
--   500 bytes each.
-- * The advisory-lock keys were (29809, queue id) in every schema, so queue 1
--   of one service schema serialised with queue 1 of another in the same
--   database. The first key is now derived from the schema.

-- The first advisory-lock key of this schema's storage locks.
CREATE FUNCTION storage_lock_class() RETURNS integer
LANGUAGE sql STABLE
SET search_path FROM CURRENT
AS $$ SELECT hashtext('taskqueue.storage:' || current_schema()) $$;

-- Takes the transaction-scoped locks that make limit checks exact: the total
-- limit's (key 0) when one is set, then each given queue's that has a limit,
-- in id order. Every growing transaction takes them in this order, before it
-- touches the counters.
CREATE FUNCTION lock_storage_limits(queue_ids integer[]) RETURNS void
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  q record;
BEGIN
  IF (SELECT value FROM service_settings WHERE name = 'total_storage_limit_bytes') IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(storage_lock_class(), 0);
  END IF;
  FOR q IN
    SELECT id FROM queues WHERE id = ANY (queue_ids) AND storage_limit_bytes IS NOT NULL ORDER BY id
  LOOP
    PERFORM pg_advisory_xact_lock(storage_lock_class(), q.id);
  END LOOP;
END
$$;

-- Raises TQ002 when a given queue, or all queues together, hold more than
-- their limit. Called after the counters changed, under lock_storage_limits.
CREATE FUNCTION check_storage_limits(queue_ids integer[]) RETURNS void
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  q           record;
  total_limit bigint;
  used        bigint;
BEGIN
  FOR q IN
    SELECT id, name, storage_limit_bytes FROM queues WHERE id = ANY (queue_ids) AND storage_limit_bytes IS NOT NULL
  LOOP
    SELECT coalesce(sum(byte_count), 0) INTO used FROM queue_storage WHERE queue_id = q.id;
    IF used > q.storage_limit_bytes THEN
      RAISE EXCEPTION 'queue "%" would hold % bytes, over its storage limit of % bytes', q.name, used, q.storage_limit_bytes
        USING ERRCODE = 'TQ002', DETAIL = q.name;
    END IF;
  END LOOP;
  SELECT value INTO total_limit FROM service_settings WHERE name = 'total_storage_limit_bytes';
  IF total_limit IS NOT NULL THEN
    SELECT coalesce(sum(byte_count), 0) INTO used FROM queue_storage;
    IF used > total_limit THEN
      RAISE EXCEPTION 'all queues would hold % bytes, over the total storage limit of % bytes', used, total_limit
        USING ERRCODE = 'TQ002', DETAIL = '';
    END IF;
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION tasks_after_insert() RETURNS trigger
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

CREATE OR REPLACE FUNCTION tasks_after_resize() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  grows boolean := NEW.size_bytes > OLD.size_bytes;
BEGIN
  IF grows THEN
    PERFORM lock_storage_limits(ARRAY[NEW.queue_id]);
  END IF;
  INSERT INTO queue_storage AS s (queue_id, shard, task_count, byte_count)
  VALUES (NEW.queue_id, (pg_backend_pid() % 32)::smallint, 0, NEW.size_bytes - OLD.size_bytes)
  ON CONFLICT (queue_id, shard) DO UPDATE
     SET byte_count = s.byte_count + EXCLUDED.byte_count;
  IF grows THEN
    PERFORM check_storage_limits(ARRAY[NEW.queue_id]);
  END IF;
  RETURN NULL;
END
$$;
