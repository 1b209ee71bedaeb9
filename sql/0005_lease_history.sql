-- 0005: lease history (statistics) and lease-rate windows.
--
-- Both are bookkeeping that may be lost in a crash without harm: the history
-- only feeds leasedLastMinute/leasedLastHour, the rate windows only throttle.
-- UNLOGGED keeps them out of the WAL on the lease path.

-- One row per lease call that returned tasks. The cleanup job removes rows
-- older than an hour.
CREATE UNLOGGED TABLE lease_history (
  queue_id   integer     NOT NULL,
  leased_at  timestamptz NOT NULL DEFAULT now(),
  task_count integer     NOT NULL CHECK (task_count > 0)
);

CREATE INDEX lease_history_queue_idx ON lease_history (queue_id, leased_at);

COMMENT ON TABLE lease_history IS 'Lease calls that returned tasks, kept for an hour, for queue statistics.';

-- Fixed-window counter of lease calls per queue: window_start is the window
-- number (epoch seconds / window length). Every process leasing a queue
-- counts here, so the limit holds across processes.
CREATE UNLOGGED TABLE lease_rate_windows (
  queue_id     integer PRIMARY KEY,
  window_start bigint  NOT NULL,
  calls        integer NOT NULL
);

COMMENT ON TABLE lease_rate_windows IS 'Lease calls counted in the current rate window of each rate-limited queue.';
