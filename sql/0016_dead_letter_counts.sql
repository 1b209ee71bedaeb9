-- 0016: dead letters counted per queue by the database.
--
-- The queues overview (queue_stats, 0009) counted each queue's dead letters
-- with count(*): a scan of the queue's whole index range, 150-194 ms per
-- page at a million dead letters, over the 100 ms a console or CLI page may
-- take. The count is now kept in counter rows written in the same
-- transaction as every insert and delete of task_dead_letters, whoever
-- writes them (lease, push delivery, the SQL API, redrive, cleanup, an
-- operator's SQL), so the figure stays exact and costs a few index lookups.
--
-- Sharded by backend pid as queue_storage (0004): concurrent leases that
-- drop tasks into one queue's dead letters do not queue up behind one row.
-- A dead letter replaced by ON CONFLICT DO UPDATE (the same name dying
-- again) is an update and changes no count. Rows never change queue_id.
--
-- The triggers read their transition table once, grouped by queue, and then
-- write one queue's counter row per statement: the form a sharded database
-- (Citus) can run inside a shard's trigger (docs/scaling.md).

CREATE TABLE dead_letter_counts (
  queue_id     integer  NOT NULL,
  shard        smallint NOT NULL,
  dead_letters bigint   NOT NULL DEFAULT 0,
  PRIMARY KEY (queue_id, shard)
);

COMMENT ON TABLE dead_letter_counts IS 'Sharded dead-letter counters; sum over shards per queue for the exact figure.';

CREATE FUNCTION dead_letters_after_insert() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT queue_id, count(*) AS n FROM new_dead_letters GROUP BY queue_id LOOP
    INSERT INTO dead_letter_counts AS c (queue_id, shard, dead_letters)
    VALUES (r.queue_id, (pg_backend_pid() % 32)::smallint, r.n)
    ON CONFLICT (queue_id, shard) DO UPDATE SET dead_letters = c.dead_letters + excluded.dead_letters;
  END LOOP;
  RETURN NULL;
END
$$;

CREATE FUNCTION dead_letters_after_delete() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT queue_id, count(*) AS n FROM old_dead_letters GROUP BY queue_id LOOP
    INSERT INTO dead_letter_counts AS c (queue_id, shard, dead_letters)
    VALUES (r.queue_id, (pg_backend_pid() % 32)::smallint, -r.n)
    ON CONFLICT (queue_id, shard) DO UPDATE SET dead_letters = c.dead_letters + excluded.dead_letters;
  END LOOP;
  RETURN NULL;
END
$$;

CREATE FUNCTION dead_letters_after_truncate() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  DELETE FROM dead_letter_counts;
  RETURN NULL;
END
$$;

-- The fixed search_path of 0015 (this schema, pg_catalog, pg_temp last).
DO $$
DECLARE
  fn regprocedure;
BEGIN
  FOREACH fn IN ARRAY ARRAY['dead_letters_after_insert()', 'dead_letters_after_delete()', 'dead_letters_after_truncate()']::regprocedure[] LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_catalog, pg_temp', fn, current_schema());
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', fn);
  END LOOP;
END
$$;

CREATE TRIGGER dead_letters_after_insert
AFTER INSERT ON task_dead_letters
REFERENCING NEW TABLE AS new_dead_letters
FOR EACH STATEMENT EXECUTE FUNCTION dead_letters_after_insert();

CREATE TRIGGER dead_letters_after_delete
AFTER DELETE ON task_dead_letters
REFERENCING OLD TABLE AS old_dead_letters
FOR EACH STATEMENT EXECUTE FUNCTION dead_letters_after_delete();

CREATE TRIGGER dead_letters_after_truncate
AFTER TRUNCATE ON task_dead_letters
FOR EACH STATEMENT EXECUTE FUNCTION dead_letters_after_truncate();

-- The dead letters already there. The triggers above took a lock that
-- waits out every writer of task_dead_letters until this migration commits,
-- and this statement sees every row committed before it: none is counted
-- twice or missed.
INSERT INTO dead_letter_counts (queue_id, shard, dead_letters)
SELECT queue_id, 0, count(*) FROM task_dead_letters GROUP BY queue_id;

-- queue_stats as in 0009, with dead_letters summed from the counters.
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
        SELECT coalesce(sum(dead_letters), 0)::int8 AS dead_letters FROM dead_letter_counts WHERE queue_id = q.id) d;
