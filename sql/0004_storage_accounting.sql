-- 0004: storage accounting and limits, enforced in the database.
--
-- Bytes and task counts per queue are kept in sharded counter rows: each
-- connection writes the shard given by its backend pid, so concurrent adds
-- and deletes of one queue do not queue up behind one hot row, while the sum
-- over a queue's shards stays exact (every change happens in the same
-- transaction as the insert or delete that causes it).
--
-- Limits are checked by the same trigger after an insert. Only adds to a
-- queue that has a limit (or any add while a total limit is set) take a
-- transaction-scoped advisory lock before touching the counters; reading the
-- sum after that lock, with a fresh snapshot, sees every committed add, so
-- two concurrent adds can never both slip under the limit. Deletes never take
-- that lock.

CREATE TABLE queue_storage (
  queue_id   integer  NOT NULL REFERENCES queues (id),
  shard      smallint NOT NULL,
  task_count bigint   NOT NULL DEFAULT 0,
  byte_count bigint   NOT NULL DEFAULT 0,
  PRIMARY KEY (queue_id, shard)
);

COMMENT ON TABLE queue_storage IS 'Sharded task and byte counters; sum over shards per queue for the exact figures.';

-- Advisory-lock key space: (class 0x7471 = "tq", key). Key 0 guards the total
-- limit; key = queue id guards that queue's limit.
CREATE FUNCTION tasks_after_insert() RETURNS trigger
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
  RETURN NULL;
END
$$;

CREATE TRIGGER tasks_after_insert
AFTER INSERT ON tasks
REFERENCING NEW TABLE AS new_tasks
FOR EACH STATEMENT EXECUTE FUNCTION tasks_after_insert();

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

-- A tag change (PATCH) changes a task's size. Leases never set tag or
-- payload, so this row trigger does not fire for them.
CREATE FUNCTION tasks_after_resize() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
BEGIN
  INSERT INTO queue_storage AS s (queue_id, shard, task_count, byte_count)
  VALUES (NEW.queue_id, (pg_backend_pid() % 32)::smallint, 0, NEW.size_bytes - OLD.size_bytes)
  ON CONFLICT (queue_id, shard) DO UPDATE
     SET byte_count = s.byte_count + EXCLUDED.byte_count;
  RETURN NULL;
END
$$;

CREATE TRIGGER tasks_after_resize
AFTER UPDATE OF tag, payload ON tasks
FOR EACH ROW WHEN (OLD.size_bytes IS DISTINCT FROM NEW.size_bytes)
EXECUTE FUNCTION tasks_after_resize();
