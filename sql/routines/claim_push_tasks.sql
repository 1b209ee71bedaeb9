-- claim_push_tasks: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

-- Claims up to p_limit due push tasks of a queue, within its token bucket
-- (p_rate tokens per second, at most p_bucket) and its cap on requests in
-- flight (NULL = none), for the dispatching process p_dispatcher. Each
-- claimed task gets eta = now + its deadline (push->deadlineSeconds, else
-- p_deadline_ms) + p_margin_ms, one more retry_count, dispatched_at set and
-- claimed_by = p_dispatcher. Returns the claimed tasks, with the eta each
-- had (X-AppEngine-TaskETA) and the new one (the claim), then one row with
-- name NULL whose wait_ms says when tokens or the next task are due (NULL:
-- nothing to wait for but a new task or a finished request). It claims
-- nothing unless p_dispatcher's row is alive at the claim's time (a process
-- paused past its lease must not claim under a dead row).
--
-- A function, so that it costs one round trip and each statement in it
-- takes a fresh snapshot: after waiting for the bucket row's lock (claims
-- of a queue take it in turn, so the tokens they spend add up exactly), it
-- counts the requests in flight and picks tasks as the previous claimer
-- left them.
CREATE OR REPLACE FUNCTION claim_push_tasks(p_queue integer, p_rate float8, p_bucket float8, p_max_concurrent integer,
                                 p_limit integer, p_deadline_ms float8, p_margin_ms float8, p_dispatcher bigint)
RETURNS TABLE (name text, payload bytea, push jsonb, retry_count integer, execution_count integer,
               eta_usec int8, claim_usec int8, first_try_usec int8, last_status integer, last_error text,
               now_usec int8, wait_ms float8)
LANGUAGE plpgsql
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
  v_now := clock_timestamp();
  -- A dead (expired) or unknown process claims nothing: its caller learns
  -- it from its heartbeat and registers again.
  IF p_dispatcher IS NOT NULL AND NOT EXISTS (SELECT 1 FROM push_dispatchers d WHERE d.id = p_dispatcher AND d.expires_at > v_now) THEN
    RETURN QUERY SELECT NULL::text, NULL::bytea, NULL::jsonb, NULL::int4, NULL::int4, NULL::int8, NULL::int8,
                        NULL::int8, NULL::int4, NULL::text, NULL::int8, NULL::float8;
    RETURN;
  END IF;
  IF st.hold_until > v_now THEN
    RETURN QUERY SELECT NULL::text, NULL::bytea, NULL::jsonb, NULL::int4, NULL::int4, NULL::int8, NULL::int8,
                        NULL::int8, NULL::int4, NULL::text, NULL::int8,
                        extract(epoch FROM st.hold_until - v_now)::float8 * 1000;
    RETURN;
  END IF;
  v_rate := CASE WHEN st.slow_until > v_now THEN p_rate / 2 ELSE p_rate END;
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
             dispatched_at = v_now,
             claimed_by = p_dispatcher
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

-- The signature without the claiming process, for a process older than the
-- dispatchers' liveness (push_dispatchers) during a rolling deploy:
-- its claims are marked by no process (held until their eta, as before),
-- and a task it claims loses the mark of an earlier claim, so the recovery
-- below never takes a live claim of such a process.
CREATE OR REPLACE FUNCTION claim_push_tasks(p_queue integer, p_rate float8, p_bucket float8, p_max_concurrent integer,
                                            p_limit integer, p_deadline_ms float8, p_margin_ms float8)
RETURNS TABLE (name text, payload bytea, push jsonb, retry_count integer, execution_count integer,
               eta_usec int8, claim_usec int8, first_try_usec int8, last_status integer, last_error text,
               now_usec int8, wait_ms float8)
LANGUAGE sql
AS $$
  SELECT * FROM claim_push_tasks(p_queue, p_rate, p_bucket, p_max_concurrent, p_limit, p_deadline_ms, p_margin_ms, NULL::int8)
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION claim_push_tasks(integer, float8, float8, integer, integer, float8, float8, bigint) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  EXECUTE format('ALTER FUNCTION claim_push_tasks(integer, float8, float8, integer, integer, float8, float8) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION claim_push_tasks(integer, float8, float8, integer, integer, float8, float8, bigint) FROM PUBLIC;
