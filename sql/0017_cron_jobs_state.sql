-- 0017: cron jobs, their last firing and their retirement.
--
-- Every process that runs a cron.yaml fires its jobs by adding one push
-- task per scheduled instant, named after the job and the instant
-- (`cron-<job>-<YYYYMMDDTHHMMSS>Z`, a form the SQL API refuses to add), so
-- the task's name (held while it lives and by its tombstone after) is what
-- makes a firing happen once however many processes try. Each scheduled
-- instant is also claimed in the job's row, in the transaction that adds
-- its task (src/store/cron/pg-cron-store.ts): a name found taken inside a claim
-- was taken by a task the cron service did not add, and the firing is
-- recorded as `skipped`, with why.
--
-- This table reports: the jobs the servers run (written at start, like the
-- queues) and each job's last firing and its outcome, for `taskqueue cron
-- list` and the console. A process that starts reads last_instant to count
-- the firings missed while none ran (they are not replayed, as on App
-- Engine). Jobs are kept by name (the cron file's `name`, or one derived
-- from url and schedule). A job missing from a starting server's file is
-- retired, not deleted: servers with different files at once (a rolling
-- deploy) must not take each other's rows, where a job's chain of instants
-- is anchored. A row is deleted only when it is retired and no server has
-- run it for the retirement period (src/core/cron/cron-store.ts).

CREATE TABLE cron_jobs (
  name          text        PRIMARY KEY,
  -- The schedule as written, its timezone, and where the firings go.
  schedule      text        NOT NULL,
  timezone      text        NOT NULL,
  url           text        NOT NULL,
  queue         text        NOT NULL,
  description   text,
  -- App Engine's target and retry_parameters as JSON
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
  last_outcome  text        CHECK (last_outcome IN ('added', 'skipped', 'failed')),
  last_error    text,
  -- Where the job's chain of instants starts until it first fires: the
  -- first server's start. `every 2 hours` (not synchronized) counts from
  -- the previous firing, so every process must count from the same one:
  -- the last scheduled instant, else this.
  anchored_at   timestamptz NOT NULL DEFAULT now(),
  -- When a server last wrote the job's definition.
  synced_at     timestamptz NOT NULL DEFAULT now(),
  retired_at    timestamptz,
  seen_at       timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE cron_jobs IS 'Cron jobs the servers run, with each job''s last firing and its outcome (the firings themselves are push tasks).';
COMMENT ON COLUMN cron_jobs.last_outcome IS
  'added; skipped (the task name was taken by a task the cron service did not add: the firing did not happen); or failed (the task could not be added). last_error says why.';
COMMENT ON COLUMN cron_jobs.retired_at IS
  'When a server started with a cron file that does not name the job (null = in the file of the last server that started with it). Servers that still run the job keep firing it.';
COMMENT ON COLUMN cron_jobs.seen_at IS
  'When a server running the job last said so (at its start, then hourly): a retired row unseen for the retirement period is deleted.';
