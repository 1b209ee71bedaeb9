-- 0003: name tombstones.
--
-- A deleted task's name stays held for a retention period (7 days by default)
-- so adding it again fails with "item exists". Tasks dropped by the retry
-- limit are tombstoned too, with the reason kept for operators.
-- A cleanup job removes tombstones older than the retention period.

CREATE TABLE task_tombstones (
  queue_id    integer     NOT NULL,
  name        text        COLLATE "C" NOT NULL,
  deleted_at  timestamptz NOT NULL DEFAULT now(),
  reason      text        NOT NULL CHECK (reason IN ('deleted', 'retry_limit')),
  retry_count integer     NOT NULL DEFAULT 0,
  PRIMARY KEY (queue_id, name)
) WITH (autovacuum_vacuum_scale_factor = 0.05, autovacuum_vacuum_insert_scale_factor = 0.05);

COMMENT ON TABLE task_tombstones IS 'Names of deleted tasks, held for the retention period; reason says why the task went.';

-- For the cleanup job: oldest tombstones first.
CREATE INDEX task_tombstones_deleted_at_idx ON task_tombstones (deleted_at);
