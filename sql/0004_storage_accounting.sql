-- 0004: storage accounting and limits, enforced in the database.
--
-- Bytes and task counts per queue are kept in sharded counter rows: each
-- connection writes the shard given by its backend pid, so concurrent adds
-- and deletes of one queue do not queue up behind one hot row, while the sum
-- over a queue's shards stays exact (every change happens in the same
-- transaction as the insert, update or delete that causes it).
--
-- Limits are checked by the triggers that grow stored bytes (an add, a tag
-- change). Only a transaction that grows a queue with a limit (or any queue
-- while a total limit is set) takes a transaction-scoped advisory lock
-- before touching the counters; reading the sum after that lock, with a
-- fresh snapshot (READ COMMITTED), sees every committed add, so two
-- concurrent adds can never both slip under the limit. Deletes never take
-- that lock. (tasks_after_insert, which also holds names of deleted tasks,
-- is in 0007.)

CREATE TABLE queue_storage (
  queue_id   integer  NOT NULL,
  shard      smallint NOT NULL,
  task_count bigint   NOT NULL DEFAULT 0,
  byte_count bigint   NOT NULL DEFAULT 0,
  PRIMARY KEY (queue_id, shard)
);

COMMENT ON TABLE queue_storage IS 'Sharded task and byte counters; sum over shards per queue for the exact figures.';

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

CREATE FUNCTION tasks_after_delete() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
BEGIN
  INSERT INTO queue_storage AS s (queue_id, shard, task_count, byte_count)
  SELECT o.queue_id, (pg_backend_pid() % 32)::smallint, -count(*), -sum(o.size_bytes)
    FROM old_tasks o GROUP BY o.queue_id
  ON CONFLICT (queue_id, shard) DO UPDATE
     SET task_count = s.task_count + EXCLUDED.task_count,
         byte_count = s.byte_count + EXCLUDED.byte_count;
  RETURN NULL;
END
$$;

CREATE TRIGGER tasks_after_delete
AFTER DELETE ON tasks
REFERENCING OLD TABLE AS old_tasks
FOR EACH STATEMENT EXECUTE FUNCTION tasks_after_delete();

-- A tag change (PATCH) changes a task's size; growing is checked against the
-- limits like an add. Leases never set tag or payload, so this row trigger
-- does not fire for them.
CREATE FUNCTION tasks_after_resize() RETURNS trigger
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

CREATE TRIGGER tasks_after_resize
AFTER UPDATE OF tag, payload ON tasks
FOR EACH ROW WHEN (OLD.size_bytes IS DISTINCT FROM NEW.size_bytes)
EXECUTE FUNCTION tasks_after_resize();
