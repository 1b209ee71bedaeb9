-- 0026: a dead dispatcher's push claims are recovered by its liveness, not
-- only by their deadline.
--
-- Until now a claim (sql/0013) held its task, and its slot of the queue's
-- max-concurrent-requests, until the task's dispatch deadline plus 30 s:
-- 10.5 minutes by default. A server killed with kill -9 while it held every
-- slot of a queue stopped that queue for as long, with other servers
-- healthy (0 of 14 waiting tasks delivered in 61 s; a cron firing held 10.5
-- minutes).
--
-- Now every dispatching process registers a row of push_dispatchers and
-- renews it (its heartbeat, on the database's clock) every few seconds; the
-- row says until when the process counts as alive (expires_at). A claim
-- records the process (tasks.claimed_by). Any live process's heartbeat
-- recovers the claims of a process whose row expired: each such task is due
-- again at once (eta = when it was claimed, dispatched_at and claimed_by
-- cleared), so the next claim of its queue takes it and its slot is free.
-- The dead process's late outcome, should it be only paused or cut off
-- rather than dead, writes nothing: every outcome holds only while eta is
-- still its claim (sql/0013). The process itself stops its requests before
-- its row can expire (src/core/dispatcher/dispatcher-liveness.ts), so two
-- deliveries of a task overlap only as at-least-once allows.
--
-- No session advisory lock and no backend pid: behind PgBouncer in
-- transaction pooling a session is not the process, and the embedded
-- engine has one backend for all.

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

ALTER TABLE tasks
  -- The push_dispatchers row of the process whose claim this is (NULL: no
  -- claim, or one made by a process older than 0026, held until its eta).
  ADD COLUMN claimed_by bigint;

COMMENT ON COLUMN tasks.claimed_by IS 'Push tasks in flight: the push_dispatchers row of the claiming process; its claim is recovered when that row expires.';

-- claim_push_tasks (sql/0013) with the claiming process: it claims nothing
-- unless p_dispatcher's row is alive at the claim's time (a process paused
-- past its lease must not claim under a dead row), and marks what it claims
-- with it. The rest is 0013's text.
CREATE FUNCTION claim_push_tasks(p_queue integer, p_rate float8, p_bucket float8, p_max_concurrent integer,
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

-- 0013's signature, for a process older than 0026 during a rolling deploy:
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

-- claim_push_tasks_after_delivery (sql/0019) with the claiming process.
CREATE FUNCTION claim_push_tasks_after_delivery(p_queue integer, p_rate float8, p_bucket float8, p_max_concurrent integer,
                                                p_limit integer, p_deadline_ms float8, p_margin_ms float8,
                                                p_names text[], p_claims_usec int8[], p_tombstones boolean[],
                                                p_dispatcher bigint)
RETURNS TABLE (name text, payload bytea, push jsonb, retry_count integer, execution_count integer,
               eta_usec int8, claim_usec int8, first_try_usec int8, last_status integer, last_error text,
               now_usec int8, wait_ms float8, delivered boolean)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
  IF cardinality(p_names) > 0 THEN
    RETURN QUERY
    WITH input AS (
      SELECT i.name, timestamptz 'epoch' + (i.usec / 1000000) * interval '1 second'
                                         + (i.usec % 1000000) * interval '1 microsecond' AS claim, i.tombstone
        FROM unnest(p_names, p_claims_usec, p_tombstones) AS i (name, usec, tombstone)
    ), gone AS (
      DELETE FROM tasks t USING input i
       WHERE t.queue_id = p_queue AND t.name = i.name AND t.eta = i.claim
      RETURNING t.name, t.retry_count, i.tombstone
    ), held AS (
      INSERT INTO task_tombstones (queue_id, name, reason, retry_count)
      SELECT p_queue, g.name, 'deleted', g.retry_count FROM gone g WHERE g.tombstone
      ON CONFLICT (queue_id, name) DO UPDATE
        SET deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
    )
    SELECT g.name, NULL::bytea, NULL::jsonb, NULL::int4, NULL::int4, NULL::int8, NULL::int8,
           NULL::int8, NULL::int4, NULL::text, NULL::int8, NULL::float8, true
      FROM gone g;
  END IF;
  RETURN QUERY
  SELECT c.name, c.payload, c.push, c.retry_count, c.execution_count, c.eta_usec, c.claim_usec, c.first_try_usec,
         c.last_status, c.last_error, c.now_usec, c.wait_ms, false
    FROM claim_push_tasks(p_queue, p_rate, p_bucket, p_max_concurrent, p_limit, p_deadline_ms, p_margin_ms, p_dispatcher) c;
END
$$;

-- Renews p_dispatcher's row for p_lease_ms from now, unless it has expired
-- already (then alive is false: the caller has stopped its requests and
-- registers again; an expired row is never brought back, so a claim
-- recovered from it stays recovered). Then recovers the claims of every
-- expired row, queue by queue (each statement touches one queue's rows, as
-- a claim does), skipping rows a late outcome is writing (the next
-- heartbeat takes them), and deletes rows expired a minute ago with no
-- claim left (a claim is made only under a live row, within a statement: a
-- minute leaves no claim of it still to commit). The recovery runs in a
-- subtransaction: should it fail, the renewal stands and a warning is
-- logged (its claims then wait for the next heartbeat, or their deadline).
-- Returns whether p_dispatcher is alive and the queues whose claims it
-- recovered.
CREATE FUNCTION push_dispatcher_heartbeat(p_dispatcher bigint, p_lease_ms float8)
RETURNS TABLE (alive boolean, recovered_queues integer[])
LANGUAGE plpgsql
AS $$
DECLARE
  v_alive  boolean;
  v_dead   int8[];
  v_queue  integer;
  v_n      integer;
  v_queues integer[] := '{}';
BEGIN
  UPDATE push_dispatchers d SET heartbeat_at = now(), expires_at = now() + p_lease_ms * interval '1 millisecond'
   WHERE d.id = p_dispatcher AND d.expires_at > now();
  v_alive := FOUND;
  SELECT array_agg(d.id) INTO v_dead FROM push_dispatchers d WHERE d.expires_at <= now();
  IF v_dead IS NOT NULL THEN
    BEGIN
      FOR v_queue IN SELECT DISTINCT t.queue_id FROM tasks t WHERE t.dispatched_at IS NOT NULL AND t.claimed_by = ANY (v_dead) LOOP
        WITH picked AS (
          SELECT t.name FROM tasks t
           WHERE t.queue_id = v_queue AND t.dispatched_at IS NOT NULL AND t.claimed_by = ANY (v_dead)
             FOR UPDATE SKIP LOCKED
        )
        UPDATE tasks t SET eta = t.dispatched_at, dispatched_at = NULL, claimed_by = NULL
          FROM picked p
         WHERE t.queue_id = v_queue AND t.name = p.name;
        GET DIAGNOSTICS v_n = ROW_COUNT;
        IF v_n > 0 THEN
          v_queues := v_queues || v_queue;
        END IF;
      END LOOP;
      DELETE FROM push_dispatchers d
       WHERE d.expires_at < now() - interval '1 minute'
         AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.dispatched_at IS NOT NULL AND t.claimed_by = d.id);
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'push_dispatcher_heartbeat: recovering the claims of expired dispatchers failed: % (%)', SQLERRM, SQLSTATE;
      v_queues := '{}';
    END;
  END IF;
  RETURN QUERY SELECT v_alive, v_queues;
END
$$;

-- A process's clean shutdown, after its requests ended: its row expires now
-- and its claims left (requests abandoned at the end of the grace) are due
-- again at once; the row goes when none is left. Returns the queues of the
-- claims it released. Only after the process stopped claiming: a claim of
-- it committing later would lose its row.
CREATE FUNCTION push_dispatcher_retire(p_dispatcher bigint)
RETURNS TABLE (released_queues integer[])
LANGUAGE plpgsql
AS $$
DECLARE
  v_queues integer[];
BEGIN
  UPDATE push_dispatchers d SET expires_at = least(d.expires_at, now()) WHERE d.id = p_dispatcher;
  WITH released AS (
    UPDATE tasks t SET eta = t.dispatched_at, dispatched_at = NULL, claimed_by = NULL
     WHERE t.dispatched_at IS NOT NULL AND t.claimed_by = p_dispatcher
    RETURNING t.queue_id
  )
  SELECT coalesce(array_agg(DISTINCT r.queue_id), '{}') INTO v_queues FROM released r;
  DELETE FROM push_dispatchers d
   WHERE d.id = p_dispatcher
     AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.dispatched_at IS NOT NULL AND t.claimed_by = d.id);
  RETURN QUERY SELECT v_queues;
END
$$;

-- The fixed search_path of sql/0015 (this schema, pg_catalog, pg_temp last).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION claim_push_tasks(integer, float8, float8, integer, integer, float8, float8, bigint) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  EXECUTE format('ALTER FUNCTION claim_push_tasks(integer, float8, float8, integer, integer, float8, float8) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  EXECUTE format('ALTER FUNCTION claim_push_tasks_after_delivery(integer, float8, float8, integer, integer, float8, float8, text[], int8[], boolean[], bigint) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  EXECUTE format('ALTER FUNCTION push_dispatcher_heartbeat(bigint, float8) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  EXECUTE format('ALTER FUNCTION push_dispatcher_retire(bigint) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;

-- The service's own functions: no role but the owner calls them (the SQL
-- API's roles add tasks and lease them; dispatching is the service's).
REVOKE ALL ON FUNCTION claim_push_tasks(integer, float8, float8, integer, integer, float8, float8, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION claim_push_tasks_after_delivery(integer, float8, float8, integer, integer, float8, float8, text[], int8[], boolean[], bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION push_dispatcher_heartbeat(bigint, float8) FROM PUBLIC;
REVOKE ALL ON FUNCTION push_dispatcher_retire(bigint) FROM PUBLIC;
