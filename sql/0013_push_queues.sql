-- 0013: push queues.
--
-- A push task is a row of tasks like a pull task: the same names,
-- tombstones, storage accounting and ETA. Its request (url, method, headers,
-- its own retry rules and deadline) is the jsonb column push; the body is
-- payload. Dispatching is a lease: a dispatcher claims a task by moving its
-- eta to the end of the delivery deadline plus a margin and marking it
-- dispatched, so a dispatcher that dies mid-request leaves a task that
-- becomes claimable again when that time passes (at-least-once delivery).
-- The outcome is written only while the claim holds (eta unchanged): a task
-- deleted or purged in flight stays deleted whatever its request returns.
--
-- Rate, bucket and concurrency hold across every process sharing the
-- database: each queue's token bucket is one row of push_queue_state, and
-- claims of one queue take that row's lock in turn (claim_push_tasks), so
-- the tokens they spend add up exactly. Requests in flight are the rows
-- dispatched whose claim has not expired, counted under the same lock.

ALTER TABLE tasks
  -- A push task's request: {url, method, headers: [[name, value]...], retry, deadlineSeconds}. NULL = a pull task.
  ADD COLUMN push            jsonb,
  -- Attempts that got a response (X-AppEngine-TaskExecutionCount).
  ADD COLUMN execution_count integer NOT NULL DEFAULT 0,
  -- The first attempt: task-age-limit is measured from it.
  ADD COLUMN first_try_at    timestamptz,
  -- The last attempt's HTTP status (NULL: none yet, or no response); why it
  -- failed goes in last_error (sql/0012), as a worker's failure does.
  ADD COLUMN last_status     integer,
  -- Set while a request is in flight (its claim is eta); NULL between attempts.
  ADD COLUMN dispatched_at   timestamptz;

COMMENT ON COLUMN tasks.push IS 'Push tasks: the HTTP request (url, method, headers, retry rules, deadline); NULL for pull tasks.';
COMMENT ON COLUMN tasks.dispatched_at IS 'Push tasks: when the request in flight was sent; it is in flight while eta (the claim) lies ahead.';

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

-- Claims up to p_limit due push tasks of a queue, within its token bucket
-- (p_rate tokens per second, at most p_bucket) and its cap on requests in
-- flight (NULL = none). Each claimed task gets eta = now + its deadline
-- (push->deadlineSeconds, else p_deadline_ms) + p_margin_ms, one more
-- retry_count, dispatched_at set. Returns the claimed tasks, with the
-- eta each had (X-AppEngine-TaskETA) and the new one (the claim), then one
-- row with name NULL whose wait_ms says when tokens or the next task are due
-- (NULL: nothing to wait for but a new task or a finished request).
--
-- A function, so that it costs one round trip and each statement in it
-- takes a fresh snapshot: after waiting for the bucket row's lock, it counts
-- the requests in flight and picks tasks as the previous claimer left them.
CREATE FUNCTION claim_push_tasks(p_queue integer, p_rate float8, p_bucket float8, p_max_concurrent integer,
                                 p_limit integer, p_deadline_ms float8, p_margin_ms float8)
RETURNS TABLE (name text, payload bytea, push jsonb, retry_count integer, execution_count integer,
               eta_usec int8, claim_usec int8, first_try_usec int8, last_status integer, last_error text,
               now_usec int8, wait_ms float8)
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
DECLARE
  st        push_queue_state%ROWTYPE;
  v_now     timestamptz;
  v_rate    float8;
  v_tokens  float8;
  v_in      integer := 0;
  v_n       integer;
  v_claimed integer := 0;
  v_next    timestamptz;
BEGIN
  IF coalesce((SELECT q.paused FROM queues q WHERE q.id = p_queue), false) OR p_rate <= 0 THEN
    RETURN QUERY SELECT NULL::text, NULL::bytea, NULL::jsonb, NULL::int4, NULL::int4, NULL::int8, NULL::int8,
                        NULL::int8, NULL::int4, NULL::text, NULL::int8, NULL::float8;
    RETURN;
  END IF;
  INSERT INTO push_queue_state AS s (queue_id, tokens, refilled_at) VALUES (p_queue, p_bucket, clock_timestamp())
  ON CONFLICT (queue_id) DO NOTHING;
  SELECT * INTO st FROM push_queue_state s WHERE s.queue_id = p_queue FOR UPDATE;
  -- The time after the lock: claims of a queue run one after another, so
  -- each refill starts where the previous one ended and tokens are exact.
  v_now := clock_timestamp();
  IF st.hold_until > v_now THEN
    RETURN QUERY SELECT NULL::text, NULL::bytea, NULL::jsonb, NULL::int4, NULL::int4, NULL::int8, NULL::int8,
                        NULL::int8, NULL::int4, NULL::text, NULL::int8,
                        extract(epoch FROM st.hold_until - v_now)::float8 * 1000;
    RETURN;
  END IF;
  v_rate := CASE WHEN st.slow_until > v_now THEN p_rate / 2 ELSE p_rate END;
  -- A hold (Retry-After) earns no tokens: the refill counts from its end.
  v_tokens := least(p_bucket, st.tokens + v_rate * greatest(0, extract(epoch FROM
                v_now - greatest(st.refilled_at, coalesce(st.hold_until, st.refilled_at))))::float8);
  IF p_max_concurrent IS NOT NULL THEN
    SELECT count(*) INTO v_in FROM tasks t
     WHERE t.queue_id = p_queue AND t.dispatched_at IS NOT NULL AND t.eta > v_now;
  END IF;
  v_n := least(p_limit, floor(v_tokens)::int4, coalesce(p_max_concurrent - v_in, p_limit));
  IF v_n > 0 THEN
    RETURN QUERY
    WITH picked AS MATERIALIZED (
      SELECT t.name, t.eta FROM tasks t
       WHERE t.queue_id = p_queue AND t.eta <= v_now
       ORDER BY t.eta
       LIMIT v_n
         FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE tasks t
         SET eta = v_now + (coalesce((t.push ->> 'deadlineSeconds')::float8 * 1000, p_deadline_ms) + p_margin_ms)
                           * interval '1 millisecond',
             retry_count = t.retry_count + 1,
             first_try_at = coalesce(t.first_try_at, v_now),
             dispatched_at = v_now
        FROM picked p
       WHERE t.queue_id = p_queue AND t.name = p.name
      RETURNING t.name, t.payload, t.push, t.retry_count, t.execution_count, p.eta AS old_eta, t.eta AS new_eta,
                t.first_try_at, t.last_status, t.last_error
    )
    SELECT c.name, c.payload, c.push, c.retry_count, c.execution_count,
           (extract(epoch FROM c.old_eta) * 1000000)::int8, (extract(epoch FROM c.new_eta) * 1000000)::int8,
           (extract(epoch FROM c.first_try_at) * 1000000)::int8, c.last_status, c.last_error,
           (extract(epoch FROM v_now) * 1000000)::int8, NULL::float8
      FROM claimed c;
    GET DIAGNOSTICS v_claimed = ROW_COUNT;
  END IF;
  v_tokens := v_tokens - v_claimed;
  UPDATE push_queue_state s SET tokens = v_tokens, refilled_at = greatest(st.refilled_at, v_now) WHERE s.queue_id = p_queue;
  -- When to look again: for a token when the bucket is what stops us; else
  -- at the next task's ETA (in flight or not: an expired claim is due too).
  IF v_claimed < p_limit THEN
    IF v_tokens < 1 THEN
      v_next := v_now + ((1 - v_tokens) / v_rate) * interval '1 second';
    ELSIF p_max_concurrent IS NULL OR v_in + v_claimed < p_max_concurrent THEN
      SELECT min(t.eta) INTO v_next FROM tasks t WHERE t.queue_id = p_queue;
    END IF;
  END IF;
  RETURN QUERY SELECT NULL::text, NULL::bytea, NULL::jsonb, NULL::int4, NULL::int4, NULL::int8, NULL::int8,
                      NULL::int8, NULL::int4, NULL::text, NULL::int8,
                      greatest(0, extract(epoch FROM v_next - v_now)::float8 * 1000);
END
$$;

-- A push queue's delivery settings as the servers last wrote them (rate,
-- bucket size, concurrency, target URL), so operator tools that read the
-- queues from the database show them, and operators can read them with SQL.
ALTER TABLE queues ADD COLUMN push_settings jsonb;

COMMENT ON COLUMN queues.push_settings IS 'Push queues: {ratePerSecond, bucketSize, maxConcurrentRequests, targetUrl, target}; NULL for pull queues.';
