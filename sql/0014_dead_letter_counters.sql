-- 0014: dead letters counted per queue by the database.
--
-- The queues overview (queue_stats) counted each queue's dead letters with
-- count(*): a scan of the queue's whole index range, 150-194 ms per page at
-- a million dead letters, over the 100 ms a console or CLI page may take.
-- The count is kept in counter rows written in the same transaction as
-- every insert and delete of task_dead_letters, whoever writes them (lease,
-- push delivery, the SQL API, redrive, cleanup, an operator's SQL), so the
-- figure stays exact and costs a few index lookups.
--
-- Sharded by backend pid as queue_storage (sql/0004): concurrent leases
-- that drop tasks into one queue's dead letters do not queue up behind one
-- row. The triggers that keep the counters, and their functions, are
-- routines (sql/routines/dead_letters_after_*.sql): routines run after the
-- numbered migrations, and a trigger needs its function.

CREATE TABLE dead_letter_counts (
  queue_id     integer  NOT NULL,
  shard        smallint NOT NULL,
  dead_letters bigint   NOT NULL DEFAULT 0,
  PRIMARY KEY (queue_id, shard)
);

COMMENT ON TABLE dead_letter_counts IS 'Sharded dead-letter counters; sum over shards per queue for the exact figure.';

-- The dead letters already there. The lock waits out every writer of
-- task_dead_letters and holds new ones off until the migration commits,
-- with the counting triggers (made by the routines in the same
-- transaction): none is counted twice or missed.
LOCK TABLE task_dead_letters IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO dead_letter_counts (queue_id, shard, dead_letters)
SELECT queue_id, 0, count(*) FROM task_dead_letters GROUP BY queue_id;
