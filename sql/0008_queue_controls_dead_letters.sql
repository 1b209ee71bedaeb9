-- 0008: queue controls (pause) and dead letters.
--
-- Pause lives on the queue's row, so every process sharing the database sees
-- it at the next lease: the lease statement reads it in the same statement
-- (src/store/lease-tasks.ts), which costs an index probe of a one-row lookup
-- and no round trip. syncQueues never writes these columns, so a pause
-- survives restarts and configuration reloads.

ALTER TABLE queues
  ADD COLUMN paused    boolean     NOT NULL DEFAULT false,
  -- When the current pause began; NULL while the queue runs.
  ADD COLUMN paused_at timestamptz;

COMMENT ON COLUMN queues.paused IS 'Paused queues accept adds and deletes; leases return nothing.';

-- Purge tombstones the names it deletes like any delete, under its own
-- reason so operators can tell a purge from deletes by consumers.
ALTER TABLE task_tombstones DROP CONSTRAINT task_tombstones_reason_check;
ALTER TABLE task_tombstones ADD CONSTRAINT task_tombstones_reason_check
  CHECK (reason IN ('deleted', 'retry_limit', 'purged'));

-- Dead letters: a task the retry limit drops is moved here by the lease
-- statement itself (a data-modifying CTE next to its tombstone), payload
-- and all, and kept for the dead-letter retention period
-- (TASKQUEUE_DEAD_LETTER_DAYS, default 7) before the cleanup job removes
-- it. Redrive moves it back into tasks under the same name, removing the
-- name's tombstone. Dead letters do not count against storage limits: they
-- are no longer tasks (the delete that made them gave the bytes back), and a
-- redrive is checked against the limits like any add.
-- A view of the same data with readable column names is in 0009
-- (dead_letters); this table is named after tasks like task_tombstones.
CREATE TABLE task_dead_letters (
  queue_id    integer     NOT NULL,
  name        text        COLLATE "C" NOT NULL,
  tag         text        COLLATE "C",
  payload     bytea       NOT NULL,
  -- Leases the task had when it died.
  retry_count integer     NOT NULL,
  enqueued_at timestamptz NOT NULL,
  died_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (queue_id, name)
);

COMMENT ON TABLE task_dead_letters IS 'Tasks dropped by the retry limit, kept for the dead-letter retention period; redrive puts them back.';

-- Listing a queue's dead letters a page at a time, oldest death first.
CREATE INDEX task_dead_letters_queue_died_idx ON task_dead_letters (queue_id, died_at, name);
-- For the cleanup job: oldest dead letters first, across queues.
CREATE INDEX task_dead_letters_died_at_idx ON task_dead_letters (died_at);
