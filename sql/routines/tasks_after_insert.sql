-- tasks_after_insert: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.
-- First in sql/0007 and sql/0011, whose trigger calls it (released; kept there as history, never edited).

-- The add trigger's function. The statement's new rows are read once, in a
-- local aggregate by queue; everything after that is one statement per
-- queue keyed by its queue_id. On Citus the trigger fires on a shard of
-- tasks, where a query that joined the transition table with another
-- distributed table cannot be planned; a statement keyed by one queue_id is
-- routed to the co-located shard on the same node (docs/scaling.md). On
-- PostgreSQL it is the same work: one tombstone probe per name, one counter
-- upsert per queue. Queues under a storage limit (all of them while a
-- total limit is set) lock before they touch the counters and check after,
-- in queue order, so limits stay exact.
-- The NOTIFY is raised only on the table itself: on a Citus shard (whose
-- name is the table's with a suffix) nobody the service listens to would
-- hear it, and a two-phase commit refuses it; waiters there are woken by
-- the service's one-second arrival probe (src/store/task-arrivals.ts).

CREATE OR REPLACE FUNCTION tasks_after_insert() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  q       record;
  held    text;
  limited boolean;
  total   boolean;
BEGIN
  total := EXISTS (SELECT 1 FROM service_settings WHERE name = 'total_storage_limit_bytes' AND value IS NOT NULL);
  FOR q IN
    SELECT n.queue_id, array_agg(n.name) AS names, count(*) AS added, sum(n.size_bytes) AS bytes,
           bool_or(n.eta <= now()) AS due
      FROM new_tasks n GROUP BY n.queue_id ORDER BY n.queue_id
  LOOP
    SELECT t.name INTO held FROM task_tombstones t WHERE t.queue_id = q.queue_id AND t.name = ANY (q.names) LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION 'task name "%" belongs to a recently deleted task and is still held', held
        USING ERRCODE = 'TQ001', DETAIL = held;
    END IF;

    limited := total OR EXISTS (SELECT 1 FROM queues WHERE id = q.queue_id AND storage_limit_bytes IS NOT NULL);
    IF limited THEN
      PERFORM lock_storage_limits(ARRAY[q.queue_id]);
    END IF;

    INSERT INTO queue_storage AS s (queue_id, shard, task_count, byte_count)
    VALUES (q.queue_id, (pg_backend_pid() % 32)::smallint, q.added, q.bytes)
    ON CONFLICT (queue_id, shard) DO UPDATE
       SET task_count = s.task_count + EXCLUDED.task_count,
           byte_count = s.byte_count + EXCLUDED.byte_count;

    IF limited THEN
      PERFORM check_storage_limits(ARRAY[q.queue_id]);
    END IF;

    IF q.due AND TG_TABLE_NAME = 'tasks'
       AND EXISTS (SELECT 1 FROM queue_waiters w WHERE w.queue_id = q.queue_id AND w.until > now()) THEN
      PERFORM pg_notify('taskqueue_tasks', current_schema() || ':' || q.queue_id);
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION tasks_after_insert() SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
