-- 0018: cron jobs and their last firing.
--
-- Every process that runs a cron.yaml fires its jobs by adding one push
-- task per scheduled instant, named after the job and the instant, so the
-- task's name (held while it lives and by its tombstone after) is what
-- makes a firing happen once however many processes try. This table only
-- reports: the jobs the servers run (written at start, like the queues)
-- and each job's last firing and its outcome, for `taskqueue cron list`
-- and the console. A process that starts reads last_instant to count the
-- firings missed while none ran (they are not replayed, as on App Engine).
--
-- Jobs are kept by name (the cron file's `name`, or one derived from url
-- and schedule); a job removed from the file loses its row at the next
-- start of a server.

CREATE TABLE cron_jobs (
  name          text        PRIMARY KEY,
  -- The schedule as written, its timezone, and where the firings go.
  schedule      text        NOT NULL,
  timezone      text        NOT NULL,
  url           text        NOT NULL,
  queue         text        NOT NULL,
  description   text,
  -- App Engine's target (kept, not routed) and retry_parameters as JSON
  -- ({jobRetryLimit, jobAgeLimitSeconds, minBackoffSeconds, ...}), so that
  -- `taskqueue cron run` fires a job from the database alone.
  target        text,
  retry         jsonb       NOT NULL,
  -- The scheduled instant of the last scheduled firing (a `cron run` leaves it).
  last_instant  timestamptz,
  -- When the last firing's task was added, scheduled or run (database clock).
  last_fired_at timestamptz,
  -- That firing's task in `queue`.
  last_task     text,
  -- 'added', or 'failed' with last_error (the task could not be added).
  last_outcome  text        CHECK (last_outcome IN ('added', 'failed')),
  last_error    text,
  -- Where the job's chain of instants starts until it first fires: the
  -- first server's start. `every 2 hours` (not synchronized) counts from
  -- the previous firing, so every process must count from the same one:
  -- the last scheduled instant, else this.
  anchored_at   timestamptz NOT NULL DEFAULT now(),
  -- When a server last wrote the job's definition.
  synced_at     timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE cron_jobs IS 'Cron jobs the servers run, with each job''s last firing and its outcome (the firings themselves are push tasks).';
