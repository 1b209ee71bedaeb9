-- 0015: the SQL API: add, lease, modify and delete tasks with one SQL call,
-- inside the caller's own transaction, from any language or a trigger.
--
--   add_task(queue, payload, name, tag, eta) -> the task's name
--   add_tasks(queue, payloads[], names[], tags[], etas[]) -> names (<= 100)
--   lease_tasks(queue, max_tasks, lease_seconds, tag, group_by_tag) -> rows
--   modify_lease(queue, name, lease_expires_at, lease_seconds) -> new expiry
--   delete_task(queue, name) -> whether a task was deleted
--   delete_tasks(queue, names[]) -> the same for each name (<= 1000)
--
-- Every function takes the queue first and touches that one queue only: a
-- function of that shape is one a sharded PostgreSQL (Citus) can run whole
-- on the node that holds the queue. The rules the database already keeps
-- for every writer (tombstoned names, storage limits, the long-poll wake-up
-- of 0007/0011, the table's constraints) hold here as they do for the
-- service; the rules the service checks before its statements are checked
-- here with the same limits, messages and order, and the behaviour suite
-- (test/sql-api/) runs the same expectations through both. A broken rule
-- raises an error with its own SQLSTATE (class TQ, table in docs/sql-api.md)
-- whose message names the rule and the value, whose DETAIL is the value
-- (task or queue name) and whose HINT is the service's error code; the
-- caller's statement fails, so nothing of a refused batch is stored.
--
-- The six functions run with their owner's rights (SECURITY DEFINER) and a
-- fixed search_path (this schema, then pg_catalog, pg_temp last), so the
-- roles granted them need no right on the tables. The roles
-- <schema>_producer (add) and <schema>_consumer (lease, modify, delete) are
-- created here when missing; where the migrating user may not create roles,
-- the migration says so (WARNING) and goes on, and an administrator runs the
-- statements of docs/sql-api.md.

-- How long a deleted task's name stays held. The service writes its
-- setting (TASKQUEUE_TOMBSTONE_DAYS) here at start-up; 7 days until then.
CREATE FUNCTION tombstone_retention() RETURNS interval
LANGUAGE sql STABLE
SET search_path FROM CURRENT
AS $$
  SELECT coalesce((SELECT value FROM service_settings WHERE name = 'tombstone_retention_ms'), 604800000)
         * interval '1 millisecond'
$$;

-- The keyed 32-bit check of a generated name (src/core/generated-name.ts):
-- FNV-1a with a fixed seed over bytes 0-13, then murmur3's fmix32. Products
-- are split so that no intermediate leaves int8.
CREATE FUNCTION generated_name_check(bytes bytea) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT
AS $$
DECLARE
  h bigint := 2052178142; -- 0x7a51c0de
BEGIN
  FOR i IN 0..13 LOOP
    h := ((h # get_byte(bytes, i)) * 16777619) & 4294967295;
  END LOOP;
  h := h # (h >> 16);
  h := (h * 51819 + (((h * 34283) & 65535) << 16)) & 4294967295;  -- * 0x85ebca6b
  h := h # (h >> 13);
  h := (h * 44597 + (((h * 49842) & 65535) << 16)) & 4294967295;  -- * 0xc2b2ae35
  h := h # (h >> 16);
  RETURN h;
END
$$;

-- When the service generated `name` (its form: 24 base64url characters of
-- 6 bytes of milliseconds, 8 random, 4 of check), or NULL for any other name.
CREATE FUNCTION generated_name_time(name text) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT
AS $$
DECLARE
  bytes bytea;
  h     bigint := 2052178142;
BEGIN
  IF length(name) <> 24 OR name !~ '^[A-Za-z0-9_-]{24}$' THEN
    RETURN NULL;
  END IF;
  bytes := decode(translate(name, '-_', '+/'), 'base64');
  -- generated_name_check, inline: this runs for every name of a delete.
  FOR i IN 0..13 LOOP
    h := ((h # get_byte(bytes, i)) * 16777619) & 4294967295;
  END LOOP;
  h := h # (h >> 16);
  h := (h * 51819 + (((h * 34283) & 65535) << 16)) & 4294967295;
  h := h # (h >> 13);
  h := (h * 44597 + (((h * 49842) & 65535) << 16)) & 4294967295;
  h := h # (h >> 16);
  IF ((get_byte(bytes, 14)::bigint << 24) | (get_byte(bytes, 15) << 16) | (get_byte(bytes, 16) << 8) | get_byte(bytes, 17)) <> h THEN
    RETURN NULL;
  END IF;
  RETURN timestamptz 'epoch' + ((get_byte(bytes, 0)::bigint << 40) | (get_byte(bytes, 1)::bigint << 32)
         | (get_byte(bytes, 2)::bigint << 24) | (get_byte(bytes, 3) << 16) | (get_byte(bytes, 4) << 8)
         | get_byte(bytes, 5)) * interval '1 millisecond';
END
$$;

-- A new name in the generated form, made now (the clock, not the
-- transaction's start, so names of one long transaction still sort by time).
CREATE FUNCTION generate_task_name() RETURNS text
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  ms    bigint := floor(extract(epoch from clock_timestamp()) * 1000)::bigint;
  rnd   bytea := uuid_send(gen_random_uuid());
  bytes bytea;
  c     bigint;
BEGIN
  -- Bytes 0-5 and 10-11 of a version 4 UUID are random (6 and 8 carry the
  -- version and variant bits).
  bytes := substring(int8send(ms) from 3 for 6) || substring(rnd from 1 for 6) || substring(rnd from 11 for 2);
  c := generated_name_check(bytes);
  bytes := bytes || substring(int8send(c) from 5 for 4);
  RETURN translate(encode(bytes, 'base64'), '+/', '-_');
END
$$;

-- Whether `name` is held by its form now: generated less than the
-- retention period ago (or later than now, from a clock ahead of ours).
CREATE FUNCTION held_by_form(name text) RETURNS boolean
LANGUAGE sql STABLE
SET search_path FROM CURRENT
AS $$ SELECT coalesce(generated_name_time(name) > now() - tombstone_retention(), false) $$;

-- The queue a call names, or the error the service gives for it.
CREATE FUNCTION sql_api_queue(queue text, pull_only boolean, action text) RETURNS queues
LANGUAGE plpgsql STABLE
SET search_path FROM CURRENT
AS $$
DECLARE
  q queues;
BEGIN
  SELECT * INTO q FROM queues WHERE queues.name = queue AND active;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'unknown queue: "%" is not a configured queue', queue
      USING ERRCODE = 'TQ003', DETAIL = coalesce(queue, ''), HINT = 'UNKNOWN_QUEUE';
  END IF;
  IF pull_only AND q.mode <> 'pull' THEN
    RAISE EXCEPTION 'queue mode: cannot % tasks of push queue "%"; only pull queues can be leased', action, queue
      USING ERRCODE = 'TQ004', DETAIL = queue, HINT = 'INVALID_QUEUE_MODE';
  END IF;
  RETURN q;
END
$$;

CREATE FUNCTION add_tasks(queue text, payloads bytea[], names text[] DEFAULT NULL, tags text[] DEFAULT NULL,
                          etas timestamptz[] DEFAULT NULL)
RETURNS text[]
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_variable
DECLARE
  q         queues;
  n         integer := coalesce(cardinality(payloads), 0);
  out_names text[] := '{}';
  out_tags  text[] := '{}';
  out_pays  bytea[] := '{}';
  given     text[] := '{}';
  task_name text;
  task_tag  text;
  payload   bytea;
  eta       timestamptz;
  held      text;
  inserted  text[];
BEGIN
  q := sql_api_queue(queue, false, 'add');
  IF q.mode <> 'pull' THEN
    RAISE EXCEPTION 'queue mode: queue "%" is a push queue; the SQL API adds pull tasks only', queue
      USING ERRCODE = 'TQ004', DETAIL = queue, HINT = 'INVALID_QUEUE_MODE';
  END IF;
  IF n = 0 THEN
    RETURN '{}';
  END IF;
  IF n > 100 THEN
    RAISE EXCEPTION 'batch size: at most 100 tasks may be added at once, got %', n
      USING ERRCODE = 'TQ009', DETAIL = n::text, HINT = 'TOO_MANY_TASKS';
  END IF;
  IF array_ndims(payloads) > 1 OR coalesce(cardinality(names), n) <> n OR coalesce(cardinality(tags), n) <> n
     OR coalesce(cardinality(etas), n) <> n THEN
    RAISE EXCEPTION 'arguments: names, tags and etas must be NULL or one-dimensional arrays as long as payloads (%)', n
      USING ERRCODE = 'TQ015', DETAIL = n::text, HINT = 'INVALID_REQUEST';
  END IF;
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    -- The trigger's tombstone and storage-limit checks read the latest
    -- committed rows only under READ COMMITTED.
    RAISE EXCEPTION 'isolation level: tasks can be added only inside READ COMMITTED transactions (the PostgreSQL default), not %',
      current_setting('transaction_isolation')
      USING ERRCODE = 'TQ015', DETAIL = current_setting('transaction_isolation'), HINT = 'INVALID_REQUEST';
  END IF;

  FOR i IN 1..n LOOP
    task_name := names[i];
    IF task_name IS NULL THEN
      task_name := generate_task_name();
    ELSE
      IF task_name !~ '^[a-zA-Z0-9_-]+$' OR length(task_name) > 500 THEN
        RAISE EXCEPTION 'task name: must match ^[a-zA-Z0-9_-]{1,500}$ (letters, digits, _ and -; 1 to 500), got "%" (task %)',
          left(task_name, 60), i
          USING ERRCODE = 'TQ005', DETAIL = left(task_name, 500), HINT = 'INVALID_TASK_NAME';
      END IF;
      given := given || task_name;
    END IF;
    payload := coalesce(payloads[i], '\x'::bytea);
    IF octet_length(payload) > 1048576 THEN
      RAISE EXCEPTION 'task size: task "%": payload is % bytes; the limit is 1048576', task_name, octet_length(payload)
        USING ERRCODE = 'TQ006', DETAIL = task_name, HINT = 'TASK_TOO_LARGE';
    END IF;
    task_tag := nullif(tags[i], '');
    IF octet_length(task_tag) > 500 THEN
      RAISE EXCEPTION 'tag size: tag must be <= 500 bytes, got a % byte tag (task "%")', octet_length(task_tag), task_name
        USING ERRCODE = 'TQ007', DETAIL = task_name, HINT = 'INVALID_TAG';
    END IF;
    eta := etas[i];
    IF eta IS NOT NULL AND (NOT isfinite(eta) OR eta < timestamptz 'epoch') THEN
      RAISE EXCEPTION 'eta: must be a time after 1970, got % (task "%")', eta, task_name
        USING ERRCODE = 'TQ008', DETAIL = task_name, HINT = 'INVALID_ETA';
    END IF;
    IF eta > now() + interval '30 days' THEN
      RAISE EXCEPTION 'eta: a task ETA lies more than 30 days ahead of the current time, got % (task "%")', eta, task_name
        USING ERRCODE = 'TQ008', DETAIL = task_name, HINT = 'INVALID_ETA';
    END IF;
    out_names[i] := task_name;
    out_tags[i] := task_tag;
    out_pays[i] := payload;
  END LOOP;

  IF cardinality(given) > 1 THEN
    SELECT g INTO held FROM unnest(given) g GROUP BY g HAVING count(*) > 1 LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION 'duplicate name: task name "%" appears twice in one add', held
        USING ERRCODE = 'TQ010', DETAIL = held, HINT = 'DUPLICATE_TASK_NAME';
    END IF;
  END IF;

  -- A given name in the generated form, made within the retention period,
  -- is a copy: held by its form whether its task is live or deleted.
  IF cardinality(given) > 0 THEN
    SELECT g INTO held FROM unnest(given) g WHERE generated_name_time(g) > now() - tombstone_retention() LIMIT 1;
    IF FOUND THEN
      SELECT t.name INTO held FROM tasks t
       WHERE t.queue_id = q.id AND t.name = ANY (given) AND generated_name_time(t.name) > now() - tombstone_retention() LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION 'task exists: task "%" already exists', held
          USING ERRCODE = 'TQ011', DETAIL = held, HINT = 'TASK_ALREADY_EXISTS';
      END IF;
      SELECT g INTO held FROM unnest(given) g WHERE generated_name_time(g) > now() - tombstone_retention() LIMIT 1;
      RAISE EXCEPTION 'task name "%" belongs to a recently deleted task and is still held', held
        USING ERRCODE = 'TQ001', DETAIL = held, HINT = 'TOMBSTONED_TASK';
    END IF;
  END IF;

  -- One statement, as the service's add: the trigger of 0007/0011 refuses
  -- tombstoned names (TQ001), keeps the storage counters and limits (TQ002)
  -- and wakes waiting long-polls. Tasks without an ETA are leasable now,
  -- one microsecond apart in the order given (FIFO), like the service's.
  -- A live name is skipped here and named below (TQ011), not left to the
  -- primary key's unique_violation, which names neither rule nor task clearly.
  WITH stored_rows AS (
    INSERT INTO tasks AS t (queue_id, name, eta, tag, payload)
    SELECT q.id, i.name, coalesce(i.eta, now() + (i.ord - 1) * interval '1 microsecond'), i.tag, i.payload
      FROM unnest(out_names, out_tags, out_pays, etas) WITH ORDINALITY AS i (name, tag, payload, eta, ord)
    ON CONFLICT DO NOTHING
    RETURNING t.name
  )
  SELECT array_agg(s.name) INTO inserted FROM stored_rows s;
  IF coalesce(cardinality(inserted), 0) <> n THEN
    SELECT o INTO held FROM unnest(out_names) WITH ORDINALITY AS u (o, ord)
     WHERE o <> ALL (coalesce(inserted, '{}')) ORDER BY ord LIMIT 1;
    RAISE EXCEPTION 'task exists: task "%" already exists', coalesce(held, '?')
      USING ERRCODE = 'TQ011', DETAIL = coalesce(held, ''), HINT = 'TASK_ALREADY_EXISTS';
  END IF;
  RETURN out_names;
END
$$;

CREATE FUNCTION add_task(queue text, payload bytea, name text DEFAULT NULL, tag text DEFAULT NULL,
                         eta timestamptz DEFAULT NULL)
RETURNS text
LANGUAGE sql VOLATILE SECURITY DEFINER
AS $$ SELECT (add_tasks(queue, ARRAY[payload], ARRAY[name], ARRAY[tag], ARRAY[eta]))[1] $$;

-- A row of lease_tasks. A type of its own, not OUT parameters: in
-- PL/pgSQL an OUT parameter may not share its name (tag) with an argument.
CREATE TYPE leased_task AS (name text, payload bytea, tag text, retry_count integer, lease_expires_at timestamptz);

CREATE FUNCTION lease_tasks(queue text, max_tasks integer, lease_seconds integer, tag text DEFAULT NULL,
                            group_by_tag boolean DEFAULT false)
RETURNS SETOF leased_task
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_column
DECLARE
  q          queues;
  want_tag   text := nullif(lease_tasks.tag, '');
  lease      interval;
  max_leases integer;
  rate_calls integer;
  rate_secs  integer;
BEGIN
  SELECT * INTO q FROM queues WHERE queues.name = queue AND queues.active AND queues.mode = 'pull';
  IF NOT FOUND THEN
    q := sql_api_queue(queue, true, 'lease');  -- raises the error that fits
  END IF;
  IF max_tasks IS NULL OR max_tasks < 1 OR max_tasks > 1000 THEN
    RAISE EXCEPTION 'max_tasks: must be from 1 to 1000, got %', coalesce(max_tasks::text, 'NULL')
      USING ERRCODE = 'TQ015', DETAIL = coalesce(max_tasks::text, ''), HINT = 'INVALID_REQUEST';
  END IF;
  IF lease_seconds IS NULL OR lease_seconds < 0 OR lease_seconds > 604800 THEN
    RAISE EXCEPTION 'lease_seconds: a lease lasts 0 to 604800 seconds (one week), got %', coalesce(lease_seconds::text, 'NULL')
      USING ERRCODE = 'TQ015', DETAIL = coalesce(lease_seconds::text, ''), HINT = 'INVALID_REQUEST';
  END IF;
  IF octet_length(want_tag) > 500 THEN
    RAISE EXCEPTION 'tag size: tag must be <= 500 bytes, got a % byte tag', octet_length(want_tag)
      USING ERRCODE = 'TQ007', DETAIL = left(want_tag, 500), HINT = 'INVALID_TAG';
  END IF;
  IF q.paused THEN
    -- As the in-process lease: a paused queue leases nothing and counts no call.
    RAISE EXCEPTION 'queue paused: queue "%" is paused; leases return no tasks until it is resumed', queue
      USING ERRCODE = 'TQ014', DETAIL = queue, HINT = 'QUEUE_PAUSED';
  END IF;
  lease := lease_seconds * interval '1 second';
  max_leases := q.max_leases;
  rate_calls := q.lease_rate_calls;
  rate_secs := q.lease_rate_seconds;

  -- The statement of src/store/lease-tasks.ts (its comment explains each
  -- step) with the queue's settings as values: the lease rate, the
  -- oldest leasable tasks FOR UPDATE SKIP LOCKED, the retry limit with its
  -- tombstones and dead letters, the 32 MB payload budget, the lease, the
  -- history. One statement per kind of pick (any, one tag, the oldest
  -- task's tag), so each keeps its index under a generic plan.
  IF want_tag IS NULL AND NOT coalesce(group_by_tag, false) THEN
    RETURN QUERY
    WITH permit AS (
      INSERT INTO lease_rate_windows AS w (queue_id, window_start, calls)
      SELECT q.id, floor(extract(epoch from now()) / rate_secs)::int8, 1
       WHERE rate_calls IS NOT NULL
      ON CONFLICT (queue_id) DO UPDATE
        SET calls = CASE WHEN w.window_start = excluded.window_start THEN w.calls + 1 ELSE 1 END,
            window_start = excluded.window_start
      RETURNING w.calls <= rate_calls AS allowed
    ), picked AS MATERIALIZED (
      SELECT t.name, t.eta, t.retry_count, octet_length(t.payload) AS payload_bytes
        FROM tasks t
       WHERE t.queue_id = q.id AND t.eta <= now()
         AND (rate_calls IS NULL OR (SELECT p.allowed FROM permit p))
       ORDER BY t.eta
       LIMIT max_tasks
         FOR UPDATE SKIP LOCKED
    ), exhausted AS (
      DELETE FROM tasks t USING picked p
       WHERE t.queue_id = q.id AND t.name = p.name AND p.retry_count >= max_leases
      RETURNING t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
    ), tombstoned AS (
      INSERT INTO task_tombstones (queue_id, name, reason, retry_count)
      SELECT q.id, e.name, 'retry_limit', e.retry_count FROM exhausted e
      ON CONFLICT (queue_id, name) DO UPDATE
        SET deleted_at = now(), reason = excluded.reason, retry_count = excluded.retry_count
    ), dead AS (
      INSERT INTO task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
      SELECT q.id, e.name, e.tag, e.payload, e.retry_count, e.enqueued_at, e.last_error FROM exhausted e
      ON CONFLICT (queue_id, name) DO UPDATE
        SET tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
            enqueued_at = excluded.enqueued_at, died_at = now(), last_error = excluded.last_error
    ), fitting AS (
      SELECT f.name, f.eta FROM (
        SELECT p.name, p.eta, sum(p.payload_bytes) OVER (ORDER BY p.eta ROWS UNBOUNDED PRECEDING) AS running_bytes
          FROM picked p WHERE max_leases IS NULL OR p.retry_count < max_leases
      ) f
      WHERE f.running_bytes <= 33554432
    ), leased AS (
      UPDATE tasks t
         SET eta = now() + lease, retry_count = t.retry_count + 1
        FROM fitting f
       WHERE t.queue_id = q.id AND t.name = f.name
      RETURNING t.name, t.tag, t.payload, t.retry_count, t.eta, f.eta AS available_at
    ), history AS (
      INSERT INTO lease_history (queue_id, task_count)
      SELECT q.id, count(*) FROM leased HAVING count(*) > 0
    )
    SELECT l.name::text, l.payload, l.tag::text, l.retry_count, l.eta FROM leased l ORDER BY l.available_at;
  ELSIF want_tag IS NOT NULL THEN
    -- By tag: its own statement, so its plan takes tasks_tag_lease_idx.
    RETURN QUERY
    WITH permit AS (
      INSERT INTO lease_rate_windows AS w (queue_id, window_start, calls)
      SELECT q.id, floor(extract(epoch from now()) / rate_secs)::int8, 1
       WHERE rate_calls IS NOT NULL
      ON CONFLICT (queue_id) DO UPDATE
        SET calls = CASE WHEN w.window_start = excluded.window_start THEN w.calls + 1 ELSE 1 END,
            window_start = excluded.window_start
      RETURNING w.calls <= rate_calls AS allowed
    ), picked AS MATERIALIZED (
      SELECT t.name, t.eta, t.retry_count, octet_length(t.payload) AS payload_bytes
        FROM tasks t
       WHERE t.queue_id = q.id AND t.eta <= now() AND t.tag = want_tag
         AND (rate_calls IS NULL OR (SELECT p.allowed FROM permit p))
       ORDER BY t.eta
       LIMIT max_tasks
         FOR UPDATE SKIP LOCKED
    ), exhausted AS (
      DELETE FROM tasks t USING picked p
       WHERE t.queue_id = q.id AND t.name = p.name AND p.retry_count >= max_leases
      RETURNING t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
    ), tombstoned AS (
      INSERT INTO task_tombstones (queue_id, name, reason, retry_count)
      SELECT q.id, e.name, 'retry_limit', e.retry_count FROM exhausted e
      ON CONFLICT (queue_id, name) DO UPDATE
        SET deleted_at = now(), reason = excluded.reason, retry_count = excluded.retry_count
    ), dead AS (
      INSERT INTO task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
      SELECT q.id, e.name, e.tag, e.payload, e.retry_count, e.enqueued_at, e.last_error FROM exhausted e
      ON CONFLICT (queue_id, name) DO UPDATE
        SET tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
            enqueued_at = excluded.enqueued_at, died_at = now(), last_error = excluded.last_error
    ), fitting AS (
      SELECT f.name, f.eta FROM (
        SELECT p.name, p.eta, sum(p.payload_bytes) OVER (ORDER BY p.eta ROWS UNBOUNDED PRECEDING) AS running_bytes
          FROM picked p WHERE max_leases IS NULL OR p.retry_count < max_leases
      ) f
      WHERE f.running_bytes <= 33554432
    ), leased AS (
      UPDATE tasks t
         SET eta = now() + lease, retry_count = t.retry_count + 1
        FROM fitting f
       WHERE t.queue_id = q.id AND t.name = f.name
      RETURNING t.name, t.tag, t.payload, t.retry_count, t.eta, f.eta AS available_at
    ), history AS (
      INSERT INTO lease_history (queue_id, task_count)
      SELECT q.id, count(*) FROM leased HAVING count(*) > 0
    )
    SELECT l.name::text, l.payload, l.tag::text, l.retry_count, l.eta FROM leased l ORDER BY l.available_at;
  ELSE
    -- Group by the oldest task's tag: `oldest` finds and locks it, one
    -- branch takes its tag, the other untagged tasks when it has none.
    RETURN QUERY
    WITH permit AS (
      INSERT INTO lease_rate_windows AS w (queue_id, window_start, calls)
      SELECT q.id, floor(extract(epoch from now()) / rate_secs)::int8, 1
       WHERE rate_calls IS NOT NULL
      ON CONFLICT (queue_id) DO UPDATE
        SET calls = CASE WHEN w.window_start = excluded.window_start THEN w.calls + 1 ELSE 1 END,
            window_start = excluded.window_start
      RETURNING w.calls <= rate_calls AS allowed
    ), oldest AS MATERIALIZED (
      SELECT t.tag FROM tasks t
       WHERE t.queue_id = q.id AND t.eta <= now()
         AND (rate_calls IS NULL OR (SELECT p.allowed FROM permit p))
       ORDER BY t.eta
       LIMIT 1
         FOR UPDATE SKIP LOCKED
    ), picked_tagged AS MATERIALIZED (
      SELECT t.name, t.eta, t.retry_count, octet_length(t.payload) AS payload_bytes
        FROM tasks t
       WHERE t.queue_id = q.id AND t.eta <= now() AND t.tag = (SELECT o.tag FROM oldest o)
       ORDER BY t.eta
       LIMIT max_tasks
         FOR UPDATE SKIP LOCKED
    ), picked_untagged AS MATERIALIZED (
      SELECT t.name, t.eta, t.retry_count, octet_length(t.payload) AS payload_bytes
        FROM tasks t
       WHERE t.queue_id = q.id AND t.eta <= now() AND t.tag IS NULL AND (SELECT o.tag IS NULL FROM oldest o)
       ORDER BY t.eta
       LIMIT max_tasks
         FOR UPDATE SKIP LOCKED
    ), picked AS MATERIALIZED (
      SELECT * FROM picked_tagged UNION ALL SELECT * FROM picked_untagged
    ), exhausted AS (
      DELETE FROM tasks t USING picked p
       WHERE t.queue_id = q.id AND t.name = p.name AND p.retry_count >= max_leases
      RETURNING t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
    ), tombstoned AS (
      INSERT INTO task_tombstones (queue_id, name, reason, retry_count)
      SELECT q.id, e.name, 'retry_limit', e.retry_count FROM exhausted e
      ON CONFLICT (queue_id, name) DO UPDATE
        SET deleted_at = now(), reason = excluded.reason, retry_count = excluded.retry_count
    ), dead AS (
      INSERT INTO task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
      SELECT q.id, e.name, e.tag, e.payload, e.retry_count, e.enqueued_at, e.last_error FROM exhausted e
      ON CONFLICT (queue_id, name) DO UPDATE
        SET tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
            enqueued_at = excluded.enqueued_at, died_at = now(), last_error = excluded.last_error
    ), fitting AS (
      SELECT f.name, f.eta FROM (
        SELECT p.name, p.eta, sum(p.payload_bytes) OVER (ORDER BY p.eta ROWS UNBOUNDED PRECEDING) AS running_bytes
          FROM picked p WHERE max_leases IS NULL OR p.retry_count < max_leases
      ) f
      WHERE f.running_bytes <= 33554432
    ), leased AS (
      UPDATE tasks t
         SET eta = now() + lease, retry_count = t.retry_count + 1
        FROM fitting f
       WHERE t.queue_id = q.id AND t.name = f.name
      RETURNING t.name, t.tag, t.payload, t.retry_count, t.eta, f.eta AS available_at
    ), history AS (
      INSERT INTO lease_history (queue_id, task_count)
      SELECT q.id, count(*) FROM leased HAVING count(*) > 0
    )
    SELECT l.name::text, l.payload, l.tag::text, l.retry_count, l.eta FROM leased l ORDER BY l.available_at;
  END IF;
END
$$;


CREATE FUNCTION modify_lease(queue text, name text, lease_expires_at timestamptz, lease_seconds integer)
RETURNS timestamptz
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_column
DECLARE
  q         queues;
  task_name text := modify_lease.name;
  token     timestamptz := modify_lease.lease_expires_at;
  new_eta   timestamptz;
BEGIN
  SELECT * INTO q FROM queues WHERE queues.name = queue AND queues.active AND queues.mode = 'pull';
  IF NOT FOUND THEN
    q := sql_api_queue(queue, true, 'modify the lease of');  -- raises the error that fits
  END IF;
  IF lease_seconds IS NULL OR lease_seconds < 0 OR lease_seconds > 604800 THEN
    RAISE EXCEPTION 'lease_seconds: a lease lasts 0 to 604800 seconds (one week), got %', coalesce(lease_seconds::text, 'NULL')
      USING ERRCODE = 'TQ015', DETAIL = coalesce(lease_seconds::text, ''), HINT = 'INVALID_REQUEST';
  END IF;
  IF token IS NULL THEN
    RAISE EXCEPTION 'lease_expires_at: the task''s lease token (the expiry its lease returned) is required'
      USING ERRCODE = 'TQ015', DETAIL = coalesce(task_name, ''), HINT = 'INVALID_REQUEST';
  END IF;
  -- Fenced by the lease token, as src/store/modify-lease.ts: only while eta
  -- is still the expiry the caller was handed, and lies ahead.
  UPDATE tasks t SET eta = now() + lease_seconds * interval '1 second'
   WHERE t.queue_id = q.id AND t.name = task_name AND t.eta = token AND t.eta > now()
  RETURNING t.eta INTO new_eta;
  IF FOUND THEN
    RETURN new_eta;
  END IF;
  IF EXISTS (SELECT 1 FROM tasks t WHERE t.queue_id = q.id AND t.name = task_name) THEN
    RAISE EXCEPTION 'lease expired: the lease on task "%" has expired or is held by another lease; it could not be modified', task_name
      USING ERRCODE = 'TQ012', DETAIL = task_name, HINT = 'TASK_LEASE_EXPIRED';
  END IF;
  IF held_by_form(task_name) OR EXISTS (SELECT 1 FROM task_tombstones d WHERE d.queue_id = q.id AND d.name = task_name) THEN
    RAISE EXCEPTION 'tombstoned: task "%" has been deleted', task_name
      USING ERRCODE = 'TQ001', DETAIL = task_name, HINT = 'TOMBSTONED_TASK';
  END IF;
  RAISE EXCEPTION 'unknown task: task "%" does not exist', task_name
    USING ERRCODE = 'TQ013', DETAIL = coalesce(task_name, ''), HINT = 'UNKNOWN_TASK';
END
$$;

-- Deletes tasks by name (at most 1000), leased or not, in one statement,
-- as src/store/delete-tasks.ts: a name held by its form needs no tombstone
-- row; any other name is held by one from now. True for each name whose
-- task was deleted, in the order given.
CREATE FUNCTION delete_tasks(queue text, names text[])
RETURNS boolean[]
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_column
DECLARE
  q         queues;
  n         integer := coalesce(cardinality(names), 0);
  untracked text[];
  deleted   text[];
BEGIN
  SELECT * INTO q FROM queues WHERE queues.name = queue AND queues.active;
  IF NOT FOUND THEN
    q := sql_api_queue(queue, false, 'delete');  -- raises the error that fits
  END IF;
  IF n = 0 THEN
    RETURN '{}';
  END IF;
  IF n > 1000 THEN
    RAISE EXCEPTION 'batch size: at most 1000 tasks may be deleted at once, got %', n
      USING ERRCODE = 'TQ009', DETAIL = n::text, HINT = 'TOO_MANY_TASKS';
  END IF;
  -- held_by_form, with the retention read once for the whole call.
  untracked := ARRAY(SELECT x FROM unnest(names) x WHERE generated_name_time(x) > now() - tombstone_retention());
  IF cardinality(untracked) = n THEN
    WITH gone AS (
      DELETE FROM tasks t WHERE t.queue_id = q.id AND t.name = ANY (names) RETURNING t.name
    )
    SELECT array_agg(g.name) INTO deleted FROM gone g;
  ELSE
    WITH gone AS (
      DELETE FROM tasks t WHERE t.queue_id = q.id AND t.name = ANY (names)
      RETURNING t.name, t.retry_count
    ), held AS (
      INSERT INTO task_tombstones (queue_id, name, reason, retry_count)
      SELECT q.id, g.name, 'deleted', g.retry_count FROM gone g WHERE g.name <> ALL (untracked)
      ON CONFLICT (queue_id, name) DO UPDATE
        SET deleted_at = now(), reason = excluded.reason, retry_count = excluded.retry_count
    )
    SELECT array_agg(g.name) INTO deleted FROM gone g;
  END IF;
  RETURN ARRAY(SELECT coalesce(x = ANY (deleted), false) FROM unnest(names) WITH ORDINALITY AS u (x, i) ORDER BY i);
END
$$;

CREATE FUNCTION delete_task(queue text, name text)
RETURNS boolean
LANGUAGE sql VOLATILE SECURITY DEFINER
AS $$ SELECT (delete_tasks(queue, ARRAY[name]))[1] $$;

-- The fixed search_path: this schema, then pg_catalog, and pg_temp last.
-- Every function of the schema gets it, not only the six: the helpers,
-- triggers and limit checks run with the owner's rights when called from
-- the six, and SET search_path FROM CURRENT (as earlier migrations wrote)
-- leaves pg_temp implicitly FIRST, where a caller's temporary table named
-- like one of ours (task_tombstones, queue_storage) would stand in for it.
-- A later migration that creates a function must set the same path.
DO $$
DECLARE
  fn regprocedure;
BEGIN
  -- Except the three that read no table and call only built-ins (a SET
  -- clause costs every call; the name check runs for every name a
  -- delete_tasks or add_tasks is given). They run under their caller's
  -- path, which is one of the fixed ones, and nobody else may call them.
  FOR fn IN SELECT p.oid::regprocedure FROM pg_proc p
             WHERE p.pronamespace = current_schema()::regnamespace
               AND p.proname NOT IN ('generated_name_check', 'generated_name_time', 'generate_task_name') LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_catalog, pg_temp', fn, current_schema());
  END LOOP;
  FOREACH fn IN ARRAY ARRAY[
    'add_tasks(text, bytea[], text[], text[], timestamptz[])', 'add_task(text, bytea, text, text, timestamptz)',
    'lease_tasks(text, integer, integer, text, boolean)', 'modify_lease(text, text, timestamptz, integer)',
    'delete_task(text, text)', 'delete_tasks(text, text[])', 'tombstone_retention()', 'generated_name_check(bytea)', 'generated_name_time(text)',
    'generate_task_name()', 'held_by_form(text)', 'sql_api_queue(text, boolean, text)'
  ]::regprocedure[] LOOP
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', fn);
  END LOOP;
END
$$;

-- The planner settings of the service's sessions (PLANNER_SETTINGS in
-- src/store/database.ts, which explains each; a test compares the two), on
-- the functions that run the statements, so that their statements are
-- planned as the service's are whatever session calls them: generic plans
-- from the first call, no JIT, no bitmap, hash or merge joins.
DO $$
DECLARE
  fn regprocedure;
BEGIN
  FOREACH fn IN ARRAY ARRAY[
    'add_tasks(text, bytea[], text[], text[], timestamptz[])',
    'lease_tasks(text, integer, integer, text, boolean)',
    'modify_lease(text, text, timestamptz, integer)',
    'delete_tasks(text, text[])'
  ]::regprocedure[] LOOP
    EXECUTE format('ALTER FUNCTION %s SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off '
                   'SET plan_cache_mode = force_generic_plan SET jit = off', fn);
  END LOOP;
END
$$;

-- The roles: <schema>_producer may add, <schema>_consumer may lease,
-- modify and delete (taskqueue_producer and taskqueue_consumer for the
-- default schema). NOLOGIN: applications log in as their own roles and are
-- granted membership. Created when missing; a migrating user who may not
-- create roles gets a WARNING and the migration goes on (docs/sql-api.md
-- has the statements for an administrator; run again, the grants below are
-- what a later migration run cannot redo, so they are in the docs too).
DO $$
DECLARE
  s        text := current_schema();
  producer text := current_schema() || '_producer';
  consumer text := current_schema() || '_consumer';
  r        text;
BEGIN
  IF length(consumer) > 63 THEN
    RAISE WARNING 'taskqueue: schema name "%" is too long for role names "%"/"%"; roles not created, see docs/sql-api.md',
      s, producer, consumer;
    RETURN;
  END IF;
  FOREACH r IN ARRAY ARRAY[producer, consumer] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
      BEGIN
        EXECUTE format('CREATE ROLE %I NOLOGIN', r);
      EXCEPTION
        WHEN insufficient_privilege THEN
          RAISE WARNING 'taskqueue: skipped creating role "%" (the migrating user may not create roles); an administrator can create and grant it as docs/sql-api.md shows', r;
        WHEN duplicate_object THEN
          NULL; -- created meanwhile by another migration of the same name
      END;
    END IF;
  END LOOP;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = producer) THEN
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', s, producer);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %I.add_task(text, bytea, text, text, timestamptz), '
                   '%I.add_tasks(text, bytea[], text[], text[], timestamptz[]) TO %I', s, s, producer);
  END IF;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = consumer) THEN
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', s, consumer);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %I.lease_tasks(text, integer, integer, text, boolean), '
                   '%I.modify_lease(text, text, timestamptz, integer), %I.delete_task(text, text), '
                   '%I.delete_tasks(text, text[]) TO %I', s, s, s, s, consumer);
  END IF;
END
$$;
