-- 0024: a cron job missing from a starting server's file is retired, not
-- deleted.
--
-- Until now a server deleted, at its start, the rows of jobs its cron file
-- does not name (0018). Servers with different files at once (a rolling
-- deploy that adds a job) then took each other's rows away: a job's row is
-- where its chain of instants is anchored, so an `every 2 hours` job whose
-- row was deleted and written again got a new anchor, and servers started
-- on either side of that counted different instants and both fired. Its
-- last firing also stopped being recorded until a server wrote the row
-- again.
--
-- Now the row stays with `retired_at` set: the anchor and the last firing
-- are kept, `cron list` and the console say the job is retired, and a
-- server that starts with the job in its file clears the mark. Every
-- server that runs a job says so in `seen_at`, at its start and then
-- hourly, so a row is deleted (at a server's start) only when it is
-- retired and no server has run it for the retirement period
-- (src/core/cron-store.ts, RETIRED_CRON_JOB_DAYS), however rarely the job
-- fires.

ALTER TABLE cron_jobs ADD COLUMN retired_at timestamptz;
ALTER TABLE cron_jobs ADD COLUMN seen_at timestamptz NOT NULL DEFAULT now();

COMMENT ON COLUMN cron_jobs.retired_at IS
  'When a server started with a cron file that does not name the job (null = in the file of the last server that started with it). Servers that still run the job keep firing it.';
COMMENT ON COLUMN cron_jobs.seen_at IS
  'When a server running the job last said so (at its start, then hourly): a retired row unseen for the retirement period is deleted.';
