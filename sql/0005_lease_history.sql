-- 0005: lease history (statistics), lease-rate windows, waited-on queues.
--
-- All three are bookkeeping that may be lost in a crash without harm: the
-- history only feeds leasedLastMinute/leasedLastHour, the rate windows only
-- throttle, the waiter marks only speed up long-poll wake-ups. UNLOGGED keeps
-- them out of the WAL on the lease path.

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

-- Queues with waiting long-poll leases. NOTIFY takes a cluster-wide lock
-- when a transaction commits, so adds notify only queues marked here (see
-- 0007): a server process with waiting lease calls marks the queue with an
-- expiry it keeps pushing forward while it waits. Measured: notifying on every
-- add made 4 concurrent producers queue up at commit.
CREATE UNLOGGED TABLE queue_waiters (
  queue_id integer     PRIMARY KEY,
  until    timestamptz NOT NULL
);

COMMENT ON TABLE queue_waiters IS 'Queues with waiting long-poll leases (until = mark expiry); tasks_after_insert notifies only these.';
