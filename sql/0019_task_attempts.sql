-- 0019: attempt history per task.
--
-- The last few attempts of a task that did not succeed: a push delivery that
-- failed (its status, an excerpt of the response body or the transport's
-- error, how long it took), a pull task failed by its worker (the error it
-- reported), and a lease that ran out or was handed back undeleted. A success
-- deletes the task, so it is not recorded: the history is for tasks still
-- here, or dead-lettered.
--
-- Bounded per task: the statement that records attempt n deletes attempt
-- n - 10 (ATTEMPTS_KEPT in src/core/task-attempt.ts), so a task keeps at most
-- its last 10 attempts, by primary key probes. No foreign key: a delete of
-- tasks (the hot path) does no work here; the cleanup job removes the
-- attempts of tasks that are neither live nor dead letters (a dead letter
-- keeps its attempts until it is redriven or removed).
--
-- attempt is the lease number (the task's retry count once leased or
-- claimed). A redriven task starts again at 1 and overwrites its older rows
-- as it goes.
CREATE TABLE task_attempts (
  queue_id    integer     NOT NULL,
  task_name   text        COLLATE "C" NOT NULL,
  attempt     integer     NOT NULL,
  -- When the attempt ended (or, for a lapse, when it was noticed).
  ended_at    timestamptz NOT NULL DEFAULT now(),
  outcome     text        NOT NULL CHECK (outcome IN ('failed', 'lapsed')),
  -- The push response's status; NULL without one (timeout, refused, pull task).
  http_status integer,
  -- The transport's error, the worker's error, or "HTTP 502": at most 1,000 characters.
  error       text,
  -- The first 1 KiB of a failed push response's body, as text; never for a 2xx.
  response_excerpt text,
  duration_ms integer,
  PRIMARY KEY (queue_id, task_name, attempt)
);

COMMENT ON TABLE task_attempts IS 'The last 10 unsuccessful attempts of each task or dead letter: failed deliveries, worker errors, lapsed leases.';

-- The cleanup job's sweep of attempts whose task is gone, oldest first.
CREATE INDEX task_attempts_ended_at_idx ON task_attempts (ended_at);

-- queue_future_tasks (sql/routines) also counts long leases (a pull task's
-- lease with more than 15 minutes still to run: if its worker died, the
-- task waits that long), in the same index range it already reads: a new
-- OUT column changes its result type, which CREATE OR REPLACE cannot, so
-- it and the view that uses it are dropped here and recreated by their
-- routine files (queue_stats gains long_leases).
DROP VIEW IF EXISTS queue_stats;
DROP FUNCTION IF EXISTS queue_future_tasks(integer);
