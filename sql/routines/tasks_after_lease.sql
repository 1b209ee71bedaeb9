-- tasks_after_lease: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.
-- The trigger is created at the end of this file (CREATE OR REPLACE TRIGGER).

-- What a lease leaves behind, written here rather than by INSERT steps of
-- the lease statement: Citus sends a statement whole to the one worker that
-- holds its queue only when it has no INSERT step, and a statement trigger
-- fires there, on the shard. So:
-- * one lease_history row per lease statement that leased tasks of a queue
--   (the statistics' leasedLastMinute/Hour). Only a lease raises a pull
--   task's retry_count (a push claim raises a push task's, and keeps no
--   lease history);
-- * the tasks the lease found past the retry limit go to the dead letters.
-- The transition tables are read in local queries only; each write is keyed
-- by one queue_id, so on Citus it goes to the co-located shard.

CREATE OR REPLACE FUNCTION tasks_after_lease() RETURNS trigger
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  q record;
  d record;
BEGIN
  -- A lease raises each task's retry_count by one: the rise of the sum is
  -- the number leased, counted without joining the two tables.
  FOR q IN SELECT c.queue_id, sum(c.rise) AS leased
             FROM (SELECT n.queue_id, n.retry_count AS rise FROM new_tasks n WHERE n.push IS NULL
                   UNION ALL
                   SELECT o.queue_id, -o.retry_count FROM old_tasks o WHERE o.push IS NULL) c
            GROUP BY c.queue_id HAVING sum(c.rise) > 0 LOOP
    INSERT INTO lease_history (queue_id, task_count) VALUES (q.queue_id, q.leased::int4);
  END LOOP;
  -- Tasks past their queue's retry limit, marked by the lease with the eta
  -- '-infinity' (never a task's own: an eta is a time after 1970): to the
  -- dead letters with a tombstone, as src/store/dead-letter-move.ts says,
  -- then deleted. Rare, so a statement per task, each keyed by its queue_id.
  FOR d IN SELECT n.queue_id, n.name, n.tag, n.payload, n.retry_count, n.enqueued_at, n.push, n.last_status, n.last_error
             FROM new_tasks n WHERE n.eta = '-infinity' LOOP
    INSERT INTO task_tombstones (queue_id, name, reason, retry_count)
    VALUES (d.queue_id, d.name, 'retry_limit', d.retry_count)
    ON CONFLICT (queue_id, name) DO UPDATE
      SET deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count;
    INSERT INTO task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at, push, last_status, last_error)
    VALUES (d.queue_id, d.name, d.tag, d.payload, d.retry_count, d.enqueued_at, d.push, d.last_status::int4, d.last_error)
    ON CONFLICT (queue_id, name) DO UPDATE
      SET tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
          enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, push = excluded.push,
          last_status = excluded.last_status, last_error = excluded.last_error;
    DELETE FROM tasks WHERE queue_id = d.queue_id AND name = d.name AND eta = '-infinity';
  END LOOP;
  RETURN NULL;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION tasks_after_lease() SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION tasks_after_lease() FROM PUBLIC;

-- Every UPDATE of tasks fires it (a trigger with transition tables cannot
-- name columns); it finds the rows a lease touched by their values.
CREATE OR REPLACE TRIGGER tasks_after_lease
AFTER UPDATE ON tasks
REFERENCING OLD TABLE AS old_tasks NEW TABLE AS new_tasks
FOR EACH STATEMENT EXECUTE FUNCTION tasks_after_lease();
