-- 0012: a task's last error, and push queues.
--
-- The tables of 0.2.0 grow the columns that failed tasks and push tasks
-- need. Functions are not here: they are routines (sql/routines/), applied
-- after the numbered migrations whenever their text changes.
--
-- A worker whose handler fails hands the task back with the error's
-- message (cut to 1000 characters by the core), so whoever looks at the
-- task sees why it keeps coming back; when the retry limit drops the task,
-- the lease statement copies the message into its dead letter.
--
-- A push task is a row of tasks like a pull task: the same names,
-- tombstones, storage accounting and ETA. Its request (url, method,
-- headers, its own retry rules and deadline) is the jsonb column push; the
-- body is payload. Dispatching is a lease: a dispatcher claims a task
-- (claim_push_tasks) by moving its eta to the end of the delivery deadline
-- plus a margin and marking it dispatched by its process, so the claim of
-- a process that dies is recovered when its push_dispatchers row expires,
-- or at the latest when that time passes (at-least-once delivery). Rate,
-- bucket and concurrency hold across every process sharing the database:
-- each queue's token bucket is one row of push_queue_state.
-- Nullable columns without a default, or with a constant one: adding them
-- rewrites no rows.

ALTER TABLE tasks ADD COLUMN last_error text;
ALTER TABLE task_dead_letters ADD COLUMN last_error text;

COMMENT ON COLUMN tasks.last_error IS 'The message of the last failure a worker reported for this task; NULL when none.';
COMMENT ON COLUMN task_dead_letters.last_error IS 'The task''s last reported failure when the retry limit dropped it.';

ALTER TABLE tasks
  -- A push task's request: {url, method, headers: [[name, value]...], retry, deadlineSeconds}. NULL = a pull task.
  ADD COLUMN push            jsonb,
  -- Attempts that got a response (X-AppEngine-TaskExecutionCount).
  ADD COLUMN execution_count integer NOT NULL DEFAULT 0,
  -- The first attempt: task-age-limit is measured from it.
  ADD COLUMN first_try_at    timestamptz,
  -- The last attempt's HTTP status (NULL: none yet, or no response); why it
  -- failed goes in last_error, as a worker's failure does.
  ADD COLUMN last_status     integer,
  -- Set while a request is in flight (its claim is eta); NULL between attempts.
  ADD COLUMN dispatched_at   timestamptz;

COMMENT ON COLUMN tasks.push IS 'Push tasks: the HTTP request (url, method, headers, retry rules, deadline); NULL for pull tasks.';
COMMENT ON COLUMN tasks.dispatched_at IS 'Push tasks: when the request in flight was sent; it is in flight while eta (the claim) lies ahead.';

-- What a task counts against storage limits includes its push request (its
-- JSON text), not only payload, name and tag. PostgreSQL 15 cannot change a
-- generated column's expression, so the column of sql/0002 is dropped and
-- added again (one rewrite of tasks), and the resize trigger, whose WHEN
-- names the column, goes first and comes back afterwards, now also for a
-- change of the push request. No counter changes: no task has a push
-- request yet.
DROP TRIGGER tasks_after_resize ON tasks;
ALTER TABLE tasks DROP COLUMN size_bytes;
ALTER TABLE tasks ADD COLUMN size_bytes integer GENERATED ALWAYS AS
  (octet_length(payload) + octet_length(name) + coalesce(octet_length(tag), 0)
   + coalesce(octet_length(push::text), 0)) STORED;

CREATE TRIGGER tasks_after_resize
AFTER UPDATE OF tag, payload, push ON tasks
FOR EACH ROW WHEN (OLD.size_bytes IS DISTINCT FROM NEW.size_bytes)
EXECUTE FUNCTION tasks_after_resize();

ALTER TABLE tasks
  -- The push_dispatchers row of the process whose claim this is (NULL: no
  -- claim, or one held until its eta).
  ADD COLUMN claimed_by bigint;

COMMENT ON COLUMN tasks.claimed_by IS 'Push tasks in flight: the push_dispatchers row of the claiming process; its claim is recovered when that row expires.';

-- Requests in flight per queue, counted at every claim of a queue with a
-- concurrency cap: only rows being delivered are in this index.
CREATE INDEX tasks_in_flight_idx ON tasks (queue_id, eta) WHERE dispatched_at IS NOT NULL;

-- A push task out of retries keeps its request and last outcome in the dead
-- letters, so redrive can deliver it again.
ALTER TABLE task_dead_letters
  ADD COLUMN push        jsonb,
  ADD COLUMN last_status integer;

CREATE TABLE push_queue_state (
  queue_id    integer     PRIMARY KEY,
  -- Tokens in the bucket at refilled_at; a dispatch spends one.
  tokens      float8      NOT NULL,
  refilled_at timestamptz NOT NULL,
  -- After a 503: the bucket refills at half the rate until then.
  slow_until  timestamptz,
  -- After a Retry-After: nothing is dispatched until then.
  hold_until  timestamptz
);

COMMENT ON TABLE push_queue_state IS 'Token bucket of each push queue, shared by every dispatching process.';

-- A push queue's delivery settings as the servers last wrote them (rate,
-- bucket size, concurrency, target URL), so operator tools that read the
-- queues from the database show them, and operators can read them with SQL.
ALTER TABLE queues ADD COLUMN push_settings jsonb;

COMMENT ON COLUMN queues.push_settings IS 'Push queues: {ratePerSecond, bucketSize, maxConcurrentRequests, targetUrl, target}; NULL for pull queues.';

-- Every dispatching process registers a row and renews it (its heartbeat,
-- on the database's clock, push_dispatcher_heartbeat) every few seconds;
-- the row says until when the process counts as alive. Any live process's
-- heartbeat recovers the claims of a process whose row expired. No session
-- advisory lock and no backend pid: behind PgBouncer in transaction pooling
-- a session is not the process, and the embedded engine has one backend.
CREATE TABLE push_dispatchers (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- Host and pid of the process, for operators.
  label        text,
  started_at   timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  -- The last heartbeat plus the lease the process asked for: after this, it
  -- is dead and its claims are recovered. Never moved forward once passed.
  expires_at   timestamptz NOT NULL
);

COMMENT ON TABLE push_dispatchers IS 'Processes dispatching push tasks: a row expired (expires_at passed) is a dead process, whose claims any live one recovers.';
