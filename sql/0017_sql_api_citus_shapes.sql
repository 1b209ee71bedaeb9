-- 0017: the SQL API's upserts in the shape a sharded PostgreSQL (Citus)
-- accepts, and push requests counted in storage.
--
-- 1. No now() in ON CONFLICT ... DO UPDATE SET: the tombstone and
--    dead-letter upserts of lease_tasks and delete_tasks take
--    excluded.deleted_at / excluded.died_at, the columns' default now()
--    (the same value: now() is the transaction's start). The service's own
--    statements (src/store/lease-tasks.ts, delete-tasks.ts,
--    delete-leased-tasks.ts) changed alike.
-- 2. The generated-name check (generated_name_check, and generated_name_time,
--    which delete_tasks runs for every name it is given) as one expression
--    for FNV-1a's 14 steps instead of a PL/pgSQL loop of 14 statements: the
--    same function, measured 1.5x faster per name (20,000 names in one
--    query, the best of 7 runs on a busy machine: 398 -> 264 ms), the
--    largest share of a delete_tasks of 100 generated names. delete_tasks
--    (and add_tasks for given names) also reads the retention once per call
--    instead of once per name (its WHERE called tombstone_retention(), a
--    function with a SET clause, for every row): the form check of 100 names went from 4.4-10.7 to
--    1.9-4.2 ms in the same session on the busy machine.
-- 3. A task's stored size (tasks.size_bytes, what storage limits count)
--    includes its push request (url, method, headers, retry rules,
--    deadline, as stored in tasks.push), not only payload, name and tag.
--    PostgreSQL 15 cannot change a generated column's expression, so the
--    column is dropped and added again (one rewrite of tasks), and the
--    storage counters are recounted from the rows in the same transaction
--    (the ALTER holds every writer of tasks out until it commits).

-- As 0015's, with the upserts of item 1.
CREATE OR REPLACE FUNCTION lease_tasks(queue text, max_tasks integer, lease_seconds integer, tag text DEFAULT NULL,
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
        SET deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
    ), dead AS (
      INSERT INTO task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
      SELECT q.id, e.name, e.tag, e.payload, e.retry_count, e.enqueued_at, e.last_error FROM exhausted e
      ON CONFLICT (queue_id, name) DO UPDATE
        SET tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
            enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
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
        SET deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
    ), dead AS (
      INSERT INTO task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
      SELECT q.id, e.name, e.tag, e.payload, e.retry_count, e.enqueued_at, e.last_error FROM exhausted e
      ON CONFLICT (queue_id, name) DO UPDATE
        SET tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
            enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
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
        SET deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
    ), dead AS (
      INSERT INTO task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
      SELECT q.id, e.name, e.tag, e.payload, e.retry_count, e.enqueued_at, e.last_error FROM exhausted e
      ON CONFLICT (queue_id, name) DO UPDATE
        SET tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
            enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
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

-- As 0015's, with the tombstone upsert of item 1, and the retention read
-- once per call (item 2).
CREATE OR REPLACE FUNCTION delete_tasks(queue text, names text[])
RETURNS boolean[]
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_column
DECLARE
  q         queues;
  n         integer := coalesce(cardinality(names), 0);
  untracked text[];
  deleted   text[];
  held_from timestamptz;
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
  -- held_by_form, with the retention read once for the whole call: in the
  -- query's WHERE, tombstone_retention() (a function with its own
  -- search_path) ran once per name, and cost more than the name check.
  held_from := now() - tombstone_retention();
  untracked := ARRAY(SELECT x FROM unnest(names) x WHERE generated_name_time(x) > held_from);
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
        SET deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
    )
    SELECT array_agg(g.name) INTO deleted FROM gone g;
  END IF;
  RETURN ARRAY(SELECT coalesce(x = ANY (deleted), false) FROM unnest(names) WITH ORDINALITY AS u (x, i) ORDER BY i);
END
$$;

-- As 0015's, with the retention read once per call (item 2).
CREATE OR REPLACE FUNCTION add_tasks(queue text, payloads bytea[], names text[] DEFAULT NULL, tags text[] DEFAULT NULL,
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
  held_from timestamptz;
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
    held_from := now() - tombstone_retention();  -- once, not once per name (0017)
    SELECT g INTO held FROM unnest(given) g WHERE generated_name_time(g) > held_from LIMIT 1;
    IF FOUND THEN
      SELECT t.name INTO held FROM tasks t
       WHERE t.queue_id = q.id AND t.name = ANY (given) AND generated_name_time(t.name) > held_from LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION 'task exists: task "%" already exists', held
          USING ERRCODE = 'TQ011', DETAIL = held, HINT = 'TASK_ALREADY_EXISTS';
      END IF;
      SELECT g INTO held FROM unnest(given) g WHERE generated_name_time(g) > held_from LIMIT 1;
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

-- Item 2. FNV-1a with 0015's seed over bytes 0-13, unrolled (each step:
-- xor a byte, times 16777619, kept to 32 bits), then murmur3's fmix32.
CREATE OR REPLACE FUNCTION generated_name_check(bytes bytea) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT
AS $$
DECLARE
  h bigint;
BEGIN
  h := ((((((((((((((((((((((((((((2052178142::int8 # get_byte(bytes, 0)) * 16777619 & 4294967295) # get_byte(bytes, 1)) * 16777619 & 4294967295) # get_byte(bytes, 2)) * 16777619 & 4294967295) # get_byte(bytes, 3)) * 16777619 & 4294967295) # get_byte(bytes, 4)) * 16777619 & 4294967295) # get_byte(bytes, 5)) * 16777619 & 4294967295) # get_byte(bytes, 6)) * 16777619 & 4294967295) # get_byte(bytes, 7)) * 16777619 & 4294967295) # get_byte(bytes, 8)) * 16777619 & 4294967295) # get_byte(bytes, 9)) * 16777619 & 4294967295) # get_byte(bytes, 10)) * 16777619 & 4294967295) # get_byte(bytes, 11)) * 16777619 & 4294967295) # get_byte(bytes, 12)) * 16777619 & 4294967295) # get_byte(bytes, 13)) * 16777619 & 4294967295);
  h := h # (h >> 16);
  h := (h * 51819 + (((h * 34283) & 65535) << 16)) & 4294967295;
  h := h # (h >> 13);
  h := (h * 44597 + (((h * 49842) & 65535) << 16)) & 4294967295;
  RETURN h # (h >> 16);
END
$$;
CREATE OR REPLACE FUNCTION generated_name_time(name text) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT
AS $$
DECLARE
  b bytea;
  h bigint;
BEGIN
  IF length(name) <> 24 OR name !~ '^[A-Za-z0-9_-]{24}$' THEN
    RETURN NULL;
  END IF;
  b := decode(translate(name, '-_', '+/'), 'base64');
  h := ((((((((((((((((((((((((((((2052178142::int8 # get_byte(b, 0)) * 16777619 & 4294967295) # get_byte(b, 1)) * 16777619 & 4294967295) # get_byte(b, 2)) * 16777619 & 4294967295) # get_byte(b, 3)) * 16777619 & 4294967295) # get_byte(b, 4)) * 16777619 & 4294967295) # get_byte(b, 5)) * 16777619 & 4294967295) # get_byte(b, 6)) * 16777619 & 4294967295) # get_byte(b, 7)) * 16777619 & 4294967295) # get_byte(b, 8)) * 16777619 & 4294967295) # get_byte(b, 9)) * 16777619 & 4294967295) # get_byte(b, 10)) * 16777619 & 4294967295) # get_byte(b, 11)) * 16777619 & 4294967295) # get_byte(b, 12)) * 16777619 & 4294967295) # get_byte(b, 13)) * 16777619 & 4294967295);
  h := h # (h >> 16);
  h := (h * 51819 + (((h * 34283) & 65535) << 16)) & 4294967295;
  h := h # (h >> 13);
  h := (h * 44597 + (((h * 49842) & 65535) << 16)) & 4294967295;
  IF ((get_byte(b, 14)::bigint << 24) | (get_byte(b, 15) << 16) | (get_byte(b, 16) << 8) | get_byte(b, 17)) <> h # (h >> 16) THEN
    RETURN NULL;
  END IF;
  RETURN timestamptz 'epoch' + ((get_byte(b, 0)::bigint << 40) | (get_byte(b, 1)::bigint << 32)
         | (get_byte(b, 2)::bigint << 24) | (get_byte(b, 3) << 16) | (get_byte(b, 4) << 8)
         | get_byte(b, 5)) * interval '1 millisecond';
END
$$;

-- CREATE OR REPLACE keeps owner and grants but replaces a function's SET
-- clauses: the three get 0015's fixed search_path and planner settings again.
DO $$
DECLARE
  fn regprocedure;
BEGIN
  FOREACH fn IN ARRAY ARRAY[
    'add_tasks(text, bytea[], text[], text[], timestamptz[])',
    'lease_tasks(text, integer, integer, text, boolean)', 'delete_tasks(text, text[])'
  ]::regprocedure[] LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_catalog, pg_temp', fn, current_schema());
    EXECUTE format('ALTER FUNCTION %s SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off '
                   'SET plan_cache_mode = force_generic_plan SET jit = off', fn);
  END LOOP;
END
$$;

-- Item 3. The resize trigger's WHEN names the column, so it goes first and
-- comes back afterwards, now also for a change of the push request.
DROP TRIGGER tasks_after_resize ON tasks;
ALTER TABLE tasks DROP COLUMN size_bytes;
-- What the task counts against storage limits: payload, name and tag bytes,
-- and a push task's request as stored (its JSON text).
ALTER TABLE tasks ADD COLUMN size_bytes integer GENERATED ALWAYS AS
  (octet_length(payload) + octet_length(name) + coalesce(octet_length(tag), 0)
   + coalesce(octet_length(push::text), 0)) STORED;

CREATE TRIGGER tasks_after_resize
AFTER UPDATE OF tag, payload, push ON tasks
FOR EACH ROW WHEN (OLD.size_bytes IS DISTINCT FROM NEW.size_bytes)
EXECUTE FUNCTION tasks_after_resize();

-- The counters again from the rows (push tasks added before this count
-- more now); shard 0 holds each queue's whole count, as any shard may.
DELETE FROM queue_storage;
INSERT INTO queue_storage (queue_id, shard, task_count, byte_count)
SELECT queue_id, 0, count(*), sum(size_bytes) FROM tasks GROUP BY queue_id;
