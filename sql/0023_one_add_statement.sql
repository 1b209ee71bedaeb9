-- 0023: one add statement for the service and the SQL API.
--
-- Until now add_tasks and add_push_task carried their own insert and their
-- own checks of the names an add is given (twice in one add, held by their
-- form, live), beside the service's insert (src/store/insert-tasks.ts) and
-- its checks in Node: one rule, two implementations. Both now run the
-- statement of src/store/add-statement.ts, the service with bound values,
-- the functions generated from it with their variables (as 0020 did for
-- the lease, the modify and the delete). It checks, on the database's
-- clock, the ETA horizon, a name given twice, a name held by its form, and
-- skips a live name (ON CONFLICT DO NOTHING, only when some name was
-- given); when it stored fewer tasks than it was given, its last step
-- calls refuse_add, which raises that rule's error (TQ008, TQ010, TQ011,
-- TQ001), so the statement fails and nothing of the add is kept. No
-- subtransaction: a caller's transaction that adds in a loop (a trigger on
-- a bulk insert) uses no subtransaction IDs for it.
--
-- modify_lease explains a modify that matched nothing (lease expired,
-- deleted, unknown) with the service's own statement too
-- (whyNotModifiedStatement in src/store/modify-lease.ts), which now counts
-- a name held by its form as deleted on the database's clock for both.

-- BEGIN GENERATED refuse_add (src/store/sql-api-functions.ts; do not edit)
CREATE OR REPLACE FUNCTION refuse_add(p_queue_id integer, p_count integer, p_stored bigint, p_late text, p_given text[],
                           p_check_form boolean, p_missing text)
RETURNS integer
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  v_held      text;
  v_live      text;
  v_held_from timestamptz;
BEGIN
  IF p_late IS NOT NULL THEN
    RAISE EXCEPTION 'eta: a task ETA lies more than 30 days ahead of the current time (task "%")', p_late
      USING ERRCODE = 'TQ008', DETAIL = p_late, HINT = 'INVALID_ETA';
  END IF;
  SELECT u.g INTO v_held FROM unnest(p_given) WITH ORDINALITY AS u (g, ord)
   GROUP BY u.g HAVING count(*) > 1 ORDER BY min(u.ord) LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'duplicate name: task name "%" appears twice in one add', v_held
      USING ERRCODE = 'TQ010', DETAIL = v_held, HINT = 'DUPLICATE_TASK_NAME';
  END IF;
  -- A given name in the generated form, made within the retention period,
  -- is a copy: held by its form whether its task is live or deleted.
  IF p_check_form THEN
    v_held_from := now() - tombstone_retention();
    SELECT u.g INTO v_held FROM unnest(p_given) WITH ORDINALITY AS u (g, ord)
     WHERE generated_name_time(u.g) > v_held_from ORDER BY u.ord LIMIT 1;
    IF FOUND THEN
      SELECT t.name INTO v_live FROM tasks t
       WHERE t.queue_id = p_queue_id AND t.name = ANY (p_given) AND generated_name_time(t.name) > v_held_from LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION 'task exists: task "%" already exists', v_live
          USING ERRCODE = 'TQ011', DETAIL = v_live, HINT = 'TASK_ALREADY_EXISTS';
      END IF;
      RAISE EXCEPTION 'task name "%" belongs to a recently deleted task and is still held', v_held
        USING ERRCODE = 'TQ001', DETAIL = v_held, HINT = 'TOMBSTONED_TASK';
    END IF;
  END IF;
  IF p_missing IS NOT NULL THEN
    RAISE EXCEPTION 'task exists: task "%" already exists', p_missing
      USING ERRCODE = 'TQ011', DETAIL = p_missing, HINT = 'TASK_ALREADY_EXISTS';
  END IF;
  RAISE EXCEPTION 'add: % of % tasks were stored', p_stored, p_count USING ERRCODE = 'XX000';
END
$$;

DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION refuse_add(integer, integer, bigint, text, text[], boolean, text) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION refuse_add(integer, integer, bigint, text, text[], boolean, text) FROM PUBLIC;
-- END GENERATED refuse_add

-- BEGIN GENERATED add_tasks (src/store/sql-api-functions.ts; do not edit)
CREATE OR REPLACE FUNCTION add_tasks(queue text, payloads bytea[], names text[] DEFAULT NULL, tags text[] DEFAULT NULL,
                          etas timestamptz[] DEFAULT NULL)
RETURNS text[]
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_column
DECLARE
  q          queues;
  n          integer := coalesce(cardinality(payloads), 0);
  v_queue_id integer;
  v_names    text[] := '{}';
  v_given    boolean[] := '{}';
  v_named    boolean;
  v_bad_at   bigint;
  v_name     text;
  v_tag      text;
  v_payload  bytea;
  v_eta      timestamptz;
  v_stored   bigint;
  v_now_usec bigint;
  v_refused  integer;
  v_made     text[];
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

  -- Names for the tasks given none, made in one call (sql/0023).
  -- (CASE: a two-dimensional names counts as none, and array_position
  -- refuses such an array; in parentheses, as IF takes its condition up to
  -- the first THEN outside them.)
  IF (CASE WHEN array_ndims(names) = 1 THEN array_position(names, NULL) IS NOT NULL ELSE true END) THEN
    v_made := generate_task_names(n);
  END IF;
  -- Each task's own rules in one pass over the arrays (sql/0022); only the first offending task is checked again,
  -- rule by rule, to raise that rule's error. A one-subscript read of a
  -- two-dimensional names, tags or etas is NULL, as in 0017's loop.
  SELECT array_agg(c.task_name ORDER BY c.ord), array_agg(c.given ORDER BY c.ord), bool_or(c.given),
         min(c.ord) FILTER (WHERE c.bad)
    INTO v_names, v_given, v_named, v_bad_at
    FROM (SELECT u.ord, u.name IS NOT NULL AS given, coalesce(u.name, v_made[u.ord]) AS task_name,
                 (u.name IS NOT NULL AND (u.name !~ '^[a-zA-Z0-9_-]+$' OR length(u.name) > 500))
                 OR octet_length(u.payload) > 1048576
                 OR octet_length(nullif(u.tag, '')) > 500
                 OR (u.eta IS NOT NULL AND (NOT isfinite(u.eta) OR u.eta < timestamptz 'epoch')) AS bad
            FROM unnest(payloads, CASE WHEN array_ndims(names) = 1 THEN names END,
                        CASE WHEN array_ndims(tags) = 1 THEN tags END,
                        CASE WHEN array_ndims(etas) = 1 THEN etas END) WITH ORDINALITY AS u (payload, name, tag, eta, ord)) c;

  IF v_bad_at IS NOT NULL THEN
    v_name := v_names[v_bad_at];
    IF names[v_bad_at] IS NOT NULL AND (v_name !~ '^[a-zA-Z0-9_-]+$' OR length(v_name) > 500) THEN
      RAISE EXCEPTION 'task name: must match ^[a-zA-Z0-9_-]{1,500}$ (letters, digits, _ and -; 1 to 500), got "%" (task %)',
        left(v_name, 60), v_bad_at
        USING ERRCODE = 'TQ005', DETAIL = left(v_name, 500), HINT = 'INVALID_TASK_NAME';
    END IF;
    v_payload := coalesce(payloads[v_bad_at], '\x'::bytea);
    IF octet_length(v_payload) > 1048576 THEN
      RAISE EXCEPTION 'task size: task "%": payload is % bytes; the limit is 1048576', v_name, octet_length(v_payload)
        USING ERRCODE = 'TQ006', DETAIL = v_name, HINT = 'TASK_TOO_LARGE';
    END IF;
    v_tag := nullif(tags[v_bad_at], '');
    IF octet_length(v_tag) > 500 THEN
      RAISE EXCEPTION 'tag size: tag must be <= 500 bytes, got a % byte tag (task "%")', octet_length(v_tag), v_name
        USING ERRCODE = 'TQ007', DETAIL = v_name, HINT = 'INVALID_TAG';
    END IF;
    v_eta := etas[v_bad_at];
    RAISE EXCEPTION 'eta: must be a time after 1970, got % (task "%")', v_eta, v_name
      USING ERRCODE = 'TQ008', DETAIL = v_name, HINT = 'INVALID_ETA';
  END IF;

  -- The service's add statement (src/store/add-statement.ts), generated
  -- from its builder: one branch per shape, so each keeps its own plan. It
  -- raises a refused task's error itself (refuse_add), and stores nothing
  -- then.
  v_queue_id := q.id;
  IF v_named THEN
    /* insert_tasks */
        with input as not materialized (/* add_tasks_input */ select u.name, nullif(u.tag, '') as tag, coalesce(u.payload, '\x'::bytea) as payload,
           -- Tasks without an ETA are leasable now, one microsecond apart in the
           -- order given (FIFO), like the service's.
           coalesce(u.eta, now() + (u.ord - 1) * interval '1 microsecond') as eta, u.ord, u.given
      from unnest(v_names, CASE WHEN array_ndims(tags) = 1 THEN tags END, payloads, etas, v_given)
           WITH ORDINALITY AS u (name, tag, payload, eta, given, ord)),
        stored as (
          insert into "tasks" as t (queue_id, name, eta, tag, payload)
          select v_queue_id, i.name, i.eta, i.tag, i.payload
            from input i
           where i.eta <= now() + (2592000001::float8 * interval '1 millisecond')
             and not (i.given and length(i.name) = 24 and coalesce(generated_name_time(i.name) > (select now() - tombstone_retention()), false))
          on conflict do nothing
          returning t.name
        )
        select (select count(*) from stored) as stored, (extract(epoch from (now() - timestamptz 'epoch')) * 1000000)::int8 as now_usec,
               -- Only evaluated when a task was refused: it raises that task's error.
               case when (select count(*) from stored) <> n then refuse_add(v_queue_id, n, (select count(*) from stored),
                  (select i.name from input i where i.eta > now() + (2592000001::float8 * interval '1 millisecond') order by i.ord limit 1),
                  (select array_agg(i.name order by i.ord) from input i where i.given),
                  true,
                  (select i.name from input i where not exists (select 1 from stored s where s.name = i.name) order by i.ord limit 1)) end as refused INTO v_stored, v_now_usec, v_refused;
  ELSE
    /* insert_tasks */
        with input as not materialized (/* add_tasks_input */ select u.name, nullif(u.tag, '') as tag, coalesce(u.payload, '\x'::bytea) as payload,
           -- Tasks without an ETA are leasable now, one microsecond apart in the
           -- order given (FIFO), like the service's.
           coalesce(u.eta, now() + (u.ord - 1) * interval '1 microsecond') as eta, u.ord
      from unnest(v_names, CASE WHEN array_ndims(tags) = 1 THEN tags END, payloads, etas)
           WITH ORDINALITY AS u (name, tag, payload, eta, ord)),
        stored as (
          insert into "tasks" as t (queue_id, name, eta, tag, payload)
          select v_queue_id, i.name, i.eta, i.tag, i.payload
            from input i
           where i.eta <= now() + (2592000001::float8 * interval '1 millisecond')
          returning 1
        )
        select (select count(*) from stored) as stored, (extract(epoch from (now() - timestamptz 'epoch')) * 1000000)::int8 as now_usec,
               -- Only evaluated when a task was refused: it raises that task's error.
               case when (select count(*) from stored) <> n then refuse_add(v_queue_id, n, (select count(*) from stored),
                  (select i.name from input i where i.eta > now() + (2592000001::float8 * interval '1 millisecond') order by i.ord limit 1),
                  null::text[],
                  false,
                  null::text) end as refused INTO v_stored, v_now_usec, v_refused;
  END IF;
  RETURN v_names;
END
$$;

-- CREATE OR REPLACE replaces a function's SET clauses: 0015's fixed
-- search_path and planner settings again.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION add_tasks(text, bytea[], text[], text[], timestamptz[]) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  ALTER FUNCTION add_tasks(text, bytea[], text[], text[], timestamptz[])
    SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
    SET plan_cache_mode = force_generic_plan SET jit = off;
END
$$;
-- END GENERATED add_tasks

-- BEGIN GENERATED add_push_task (src/store/sql-api-functions.ts; do not edit)
CREATE OR REPLACE FUNCTION add_push_task(queue text, url text DEFAULT NULL, method text DEFAULT 'POST',
                              headers jsonb DEFAULT NULL, payload bytea DEFAULT NULL, name text DEFAULT NULL,
                              eta timestamptz DEFAULT NULL, dispatch_deadline_seconds double precision DEFAULT NULL,
                              retry_options jsonb DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_variable
DECLARE
  q         queues;
  v_method  text := coalesce(method, 'POST');
  v_url     text;
  v_name    text := name;
  v_body    bytea := coalesce(payload, '\x'::bytea);
  v_headers jsonb := '[]';
  v_size    bigint;
  v_push    jsonb;
  h         record;
  v_retry   jsonb;
  r_limit   numeric;
  r_age     numeric;
  r_min     numeric;
  r_max     numeric;
  r_double  numeric;
  v_queue_id integer;
  v_stored   bigint;
  v_now_usec bigint;
  v_refused  integer;
BEGIN
  q := sql_api_queue(queue, false, 'add');
  IF q.mode <> 'push' THEN
    RAISE EXCEPTION 'queue mode: queue "%" is a pull queue; add_push_task adds push tasks to push queues only (add_task adds pull tasks)', queue
      USING ERRCODE = 'TQ004', DETAIL = queue, HINT = 'INVALID_QUEUE_MODE';
  END IF;
  IF v_method = 'PULL' THEN
    RAISE EXCEPTION 'queue mode: queue "%" is a push queue; a PULL task cannot be added to it', queue
      USING ERRCODE = 'TQ004', DETAIL = queue, HINT = 'INVALID_QUEUE_MODE';
  END IF;
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    -- The trigger's tombstone and storage-limit checks read the latest
    -- committed rows only under READ COMMITTED.
    RAISE EXCEPTION 'isolation level: tasks can be added only inside READ COMMITTED transactions (the PostgreSQL default), not %',
      current_setting('transaction_isolation')
      USING ERRCODE = 'TQ015', DETAIL = current_setting('transaction_isolation'), HINT = 'INVALID_REQUEST';
  END IF;
  -- The queue's base URL as the service wrote it (its <target-url>, else
  -- TASKQUEUE_PUSH_BASE_URL): written as null, the task has nowhere to go.
  IF q.push_settings ? 'baseUrl' AND q.push_settings -> 'baseUrl' = 'null'::jsonb THEN
    RAISE EXCEPTION 'target url: push queue "%" has nowhere to deliver: set <target-url> (target_url in queue.yaml) on the queue or TASKQUEUE_PUSH_BASE_URL', queue
      USING ERRCODE = 'TQ015', DETAIL = queue, HINT = 'INVALID_REQUEST';
  END IF;

  IF v_name IS NULL THEN
    v_name := generate_task_name();
  ELSE
    IF v_name !~ '^[a-zA-Z0-9_-]+$' OR length(v_name) > 500 THEN
      RAISE EXCEPTION 'task name: must match ^[a-zA-Z0-9_-]{1,500}$ (letters, digits, _ and -; 1 to 500), got "%"', left(v_name, 60)
        USING ERRCODE = 'TQ005', DETAIL = left(v_name, 500), HINT = 'INVALID_TASK_NAME';
    END IF;
  END IF;
  IF v_method = 'PUSH' THEN
    v_method := 'POST';
  END IF;
  IF v_method <> ALL (ARRAY['POST', 'GET', 'PUT', 'DELETE', 'HEAD', 'PATCH']::text[]) THEN
    RAISE EXCEPTION 'method: task "%": method must be one of POST, GET, PUT, DELETE, HEAD, PATCH, got "%"', v_name, left(v_method, 60)
      USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;
  v_url := coalesce(url, '/_ah/queue/' || queue);
  IF v_url !~ '^\/[\x21-\x22\x24-\x7e]*$' THEN
    RAISE EXCEPTION 'url: task "%": url must be a path starting with "/" (printable characters, no spaces, no fragment), got "%"', v_name, left(v_url, 80)
      USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;

  -- Headers as an object of names to values, or as [name, value] pairs
  -- (the order given kept; an object's is jsonb's own, sorted by name).
  IF headers IS NOT NULL AND jsonb_typeof(headers) NOT IN ('object', 'array') THEN
    RAISE EXCEPTION 'headers: task "%": headers must be an object of names to values, or a list of [name, value] pairs', v_name
      USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;
  FOR h IN
    SELECT to_jsonb(e.key) AS k, e.value AS v, true AS pair, e.ord
      FROM jsonb_each(CASE WHEN jsonb_typeof(headers) = 'object' THEN headers END) WITH ORDINALITY AS e (key, value, ord)
    UNION ALL
    SELECT p.value -> 0, p.value -> 1,
           CASE WHEN jsonb_typeof(p.value) = 'array' THEN jsonb_array_length(p.value) = 2 ELSE false END, p.ord
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(headers) = 'array' THEN headers END) WITH ORDINALITY AS p (value, ord)
     ORDER BY 4
  LOOP
    IF NOT h.pair OR jsonb_typeof(h.k) IS DISTINCT FROM 'string' OR (h.k #>> '{}') !~ '^[!#$%&''*+.^_`|~0-9A-Za-z-]+$' THEN
      RAISE EXCEPTION 'headers: task "%": header name % is not a valid HTTP header name', v_name, left(coalesce(h.k::text, 'null'), 80)
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
    END IF;
    IF jsonb_typeof(h.v) IS DISTINCT FROM 'string' OR (h.v #>> '{}') !~ '^[^\r\n\0]*$' THEN
      RAISE EXCEPTION 'headers: task "%": header % must have a string value without CR, LF or NUL', v_name, h.k #>> '{}'
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
    END IF;
    -- Headers the service sets itself are dropped, as the service drops them.
    IF lower(h.k #>> '{}') = ANY (ARRAY['x-appengine-failfast']::text[])
       OR NOT (lower(h.k #>> '{}') = ANY (ARRAY['content-length', 'host', 'transfer-encoding', 'connection']::text[])
               OR EXISTS (SELECT 1 FROM unnest(ARRAY['x-cloudtasks-', 'x-appengine-']::text[]) x WHERE starts_with(lower(h.k #>> '{}'), x))) THEN
      v_headers := v_headers || jsonb_build_array(jsonb_build_array(h.k, h.v));
    END IF;
  END LOOP;

  IF octet_length(v_body) > 0 AND v_method <> ALL (ARRAY['POST', 'PUT', 'PATCH']::text[]) THEN
    RAISE EXCEPTION 'payload: task "%": a % task cannot have a body (only POST, PUT, PATCH can)', v_name, v_method
      USING ERRCODE = 'TQ016', DETAIL = v_name, HINT = 'INVALID_PAYLOAD';
  END IF;
  IF length(v_url) > 2083 THEN
    RAISE EXCEPTION 'url: task "%": url is % characters; the limit is 2083', v_name, length(v_url)
      USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;
  SELECT octet_length(v_url) + octet_length(v_body)
         + coalesce(sum(octet_length(x.value ->> 0) + octet_length(x.value ->> 1)), 0)
    INTO v_size FROM jsonb_array_elements(v_headers) AS x (value);
  IF v_size > 102400 THEN
    RAISE EXCEPTION 'task size: task "%": url, headers and body are % bytes; a push task may have at most 102400', v_name, v_size
      USING ERRCODE = 'TQ006', DETAIL = v_name, HINT = 'TASK_TOO_LARGE';
  END IF;
  IF retry_options IS NOT NULL THEN
    IF jsonb_typeof(retry_options) <> 'object' THEN
      RAISE EXCEPTION 'retry options: task "%": retryOptions must be an object', v_name
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
    END IF;
    IF retry_options ? 'taskRetryLimit' AND (CASE WHEN jsonb_typeof(retry_options -> 'taskRetryLimit') = 'number' THEN (retry_options ->> 'taskRetryLimit')::numeric < 0 OR (retry_options ->> 'taskRetryLimit')::numeric > 2147483647 OR (retry_options ->> 'taskRetryLimit')::numeric <> trunc((retry_options ->> 'taskRetryLimit')::numeric) ELSE true END) THEN
      RAISE EXCEPTION 'retry options: task "%": retryOptions.taskRetryLimit must be an integer from 0 to 2147483647, got %', v_name, retry_options -> 'taskRetryLimit'
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
    END IF;
    IF retry_options ? 'taskAgeLimitSeconds' AND (CASE WHEN jsonb_typeof(retry_options -> 'taskAgeLimitSeconds') = 'number' THEN (retry_options ->> 'taskAgeLimitSeconds')::numeric < 0 OR (retry_options ->> 'taskAgeLimitSeconds')::numeric > 1000000000000 ELSE true END) THEN
      RAISE EXCEPTION 'retry options: task "%": retryOptions.taskAgeLimitSeconds must be a number from 0 to 1000000000000, got %', v_name, retry_options -> 'taskAgeLimitSeconds'
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
    END IF;
    IF retry_options ? 'minBackoffSeconds' AND (CASE WHEN jsonb_typeof(retry_options -> 'minBackoffSeconds') = 'number' THEN (retry_options ->> 'minBackoffSeconds')::numeric < 0 OR (retry_options ->> 'minBackoffSeconds')::numeric > 1000000000000 ELSE true END) THEN
      RAISE EXCEPTION 'retry options: task "%": retryOptions.minBackoffSeconds must be a number from 0 to 1000000000000, got %', v_name, retry_options -> 'minBackoffSeconds'
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
    END IF;
    IF retry_options ? 'maxBackoffSeconds' AND (CASE WHEN jsonb_typeof(retry_options -> 'maxBackoffSeconds') = 'number' THEN (retry_options ->> 'maxBackoffSeconds')::numeric < 0 OR (retry_options ->> 'maxBackoffSeconds')::numeric > 1000000000000 ELSE true END) THEN
      RAISE EXCEPTION 'retry options: task "%": retryOptions.maxBackoffSeconds must be a number from 0 to 1000000000000, got %', v_name, retry_options -> 'maxBackoffSeconds'
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
    END IF;
    IF retry_options ? 'maxDoublings' AND (CASE WHEN jsonb_typeof(retry_options -> 'maxDoublings') = 'number' THEN (retry_options ->> 'maxDoublings')::numeric < 0 OR (retry_options ->> 'maxDoublings')::numeric > 63 OR (retry_options ->> 'maxDoublings')::numeric <> trunc((retry_options ->> 'maxDoublings')::numeric) ELSE true END) THEN
      RAISE EXCEPTION 'retry options: task "%": retryOptions.maxDoublings must be an integer from 0 to 63, got %', v_name, retry_options -> 'maxDoublings'
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
    END IF;
    r_limit := (retry_options ->> 'taskRetryLimit')::numeric;
    r_age := (retry_options ->> 'taskAgeLimitSeconds')::numeric;
    r_min := (retry_options ->> 'minBackoffSeconds')::numeric;
    r_max := (retry_options ->> 'maxBackoffSeconds')::numeric;
    r_double := (retry_options ->> 'maxDoublings')::numeric;
    IF r_age = 0 THEN
      RAISE EXCEPTION 'retry options: task "%": retryOptions.taskAgeLimitSeconds must be more than 0', v_name
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
    END IF;
    IF r_min > r_max THEN
      RAISE EXCEPTION 'retry options: task "%": retryOptions.minBackoffSeconds (%) must not be greater than maxBackoffSeconds (%)', v_name, r_min, r_max
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
    END IF;
    -- As in the queue file: when only one bound is set, the other default gives way.
    v_retry := jsonb_build_object('retryLimit', r_limit::bigint, 'parameters', jsonb_build_object(
      'ageLimitSeconds', r_age,
      'minBackoffSeconds', coalesce(r_min, least(0.1, coalesce(r_max, 0.1))),
      'maxBackoffSeconds', coalesce(r_max, greatest(3600, coalesce(r_min, 0))),
      'maxDoublings', coalesce(r_double::bigint, 16)));
  END IF;
  IF dispatch_deadline_seconds IS NOT NULL AND (dispatch_deadline_seconds = 'NaN' OR dispatch_deadline_seconds < 15
     OR dispatch_deadline_seconds > 86400) THEN
    RAISE EXCEPTION 'dispatch deadline: task "%": must be from 15 to 86400 seconds, got %', v_name, dispatch_deadline_seconds
      USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;
  IF eta IS NOT NULL AND (NOT isfinite(eta) OR eta < timestamptz 'epoch') THEN
    RAISE EXCEPTION 'eta: must be a time after 1970, got % (task "%")', eta, v_name
      USING ERRCODE = 'TQ008', DETAIL = v_name, HINT = 'INVALID_ETA';
  END IF;

  -- The request as the service stores it (PushRequest in push-task.ts).
  v_push := jsonb_build_object('url', v_url, 'method', v_method, 'headers', v_headers, 'retry', v_retry,
                               'deadlineSeconds', dispatch_deadline_seconds);
  -- The service's add statement (src/store/add-statement.ts), generated
  -- from its builder, with this one task: the ETA horizon, a name held by
  -- its form or live, and through its trigger a tombstoned name, the
  -- storage limits and the dispatcher's wake-up. It raises a refused
  -- task's error itself (refuse_add).
  v_queue_id := q.id;
  IF name IS NOT NULL THEN
    /* insert_tasks */
        with input as not materialized (/* add_push_task_input */ select v_name as name, null::text as tag, v_body as payload, coalesce(eta, now()) as eta, 1::int8 as ord, true as given, v_push as push),
        stored as (
          insert into "tasks" as t (queue_id, name, eta, tag, payload, push)
          select v_queue_id, i.name, i.eta, i.tag, i.payload, i.push
            from input i
           where i.eta <= now() + (2592000001::float8 * interval '1 millisecond')
             and not (i.given and length(i.name) = 24 and coalesce(generated_name_time(i.name) > (select now() - tombstone_retention()), false))
          on conflict do nothing
          returning t.name
        )
        select (select count(*) from stored) as stored, (extract(epoch from (now() - timestamptz 'epoch')) * 1000000)::int8 as now_usec,
               -- Only evaluated when a task was refused: it raises that task's error.
               case when (select count(*) from stored) <> 1 then refuse_add(v_queue_id, 1, (select count(*) from stored),
                  (select i.name from input i where i.eta > now() + (2592000001::float8 * interval '1 millisecond') order by i.ord limit 1),
                  (select array_agg(i.name order by i.ord) from input i where i.given),
                  true,
                  (select i.name from input i where not exists (select 1 from stored s where s.name = i.name) order by i.ord limit 1)) end as refused INTO v_stored, v_now_usec, v_refused;
  ELSE
    /* insert_tasks */
        with input as not materialized (/* add_push_task_input */ select v_name as name, null::text as tag, v_body as payload, coalesce(eta, now()) as eta, 1::int8 as ord, v_push as push),
        stored as (
          insert into "tasks" as t (queue_id, name, eta, tag, payload, push)
          select v_queue_id, i.name, i.eta, i.tag, i.payload, i.push
            from input i
           where i.eta <= now() + (2592000001::float8 * interval '1 millisecond')
          returning 1
        )
        select (select count(*) from stored) as stored, (extract(epoch from (now() - timestamptz 'epoch')) * 1000000)::int8 as now_usec,
               -- Only evaluated when a task was refused: it raises that task's error.
               case when (select count(*) from stored) <> 1 then refuse_add(v_queue_id, 1, (select count(*) from stored),
                  (select i.name from input i where i.eta > now() + (2592000001::float8 * interval '1 millisecond') order by i.ord limit 1),
                  null::text[],
                  false,
                  null::text) end as refused INTO v_stored, v_now_usec, v_refused;
  END IF;
  RETURN v_name;
END
$$;

-- CREATE OR REPLACE replaces a function's SET clauses: 0015's fixed
-- search_path and planner settings again.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION add_push_task(text, text, text, jsonb, bytea, text, timestamptz, double precision, jsonb) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  ALTER FUNCTION add_push_task(text, text, text, jsonb, bytea, text, timestamptz, double precision, jsonb)
    SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
    SET plan_cache_mode = force_generic_plan SET jit = off;
END
$$;

REVOKE ALL ON FUNCTION add_push_task(text, text, text, jsonb, bytea, text, timestamptz, double precision, jsonb) FROM PUBLIC;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_schema() || '_producer') THEN
    EXECUTE format('GRANT EXECUTE ON FUNCTION %I.add_push_task(text, text, text, jsonb, bytea, text, timestamptz, double precision, jsonb) TO %I', current_schema(), current_schema() || '_producer');
  END IF;
END
$$;
-- END GENERATED add_push_task

-- BEGIN GENERATED modify_lease (src/store/sql-api-functions.ts; do not edit)
CREATE OR REPLACE FUNCTION modify_lease(queue text, name text, lease_expires_at timestamptz, lease_seconds integer)
RETURNS timestamptz
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_column
DECLARE
  q          queues;
  r          record;
  v_queue_id integer;
  v_name     text := modify_lease.name;
  v_token    timestamptz := modify_lease.lease_expires_at;
  v_lease_ms float8 := modify_lease.lease_seconds * 1000.0;
  v_live     boolean;
  v_deleted  boolean;
BEGIN
  SELECT * INTO q FROM queues WHERE queues.name = queue AND queues.active AND queues.mode = 'pull';
  IF NOT FOUND THEN
    q := sql_api_queue(queue, true, 'modify the lease of');  -- raises the error that fits
  END IF;
  IF lease_seconds IS NULL OR lease_seconds < 0 OR lease_seconds > 604800 THEN
    RAISE EXCEPTION 'lease_seconds: a lease lasts 0 to 604800 seconds (one week), got %', coalesce(lease_seconds::text, 'NULL')
      USING ERRCODE = 'TQ015', DETAIL = coalesce(lease_seconds::text, ''), HINT = 'INVALID_REQUEST';
  END IF;
  IF v_token IS NULL THEN
    RAISE EXCEPTION 'lease_expires_at: the task''s lease token (the expiry its lease returned) is required'
      USING ERRCODE = 'TQ015', DETAIL = coalesce(v_name, ''), HINT = 'INVALID_REQUEST';
  END IF;
  v_queue_id := q.id;
  -- The service's modify (src/store/modify-lease.ts), generated from its
  -- builder: fenced by the token, only while eta is still the expiry the
  -- caller was handed and lies ahead.
  FOR r IN
    /* modify_lease */
        update "tasks"
           set eta = now() + (v_lease_ms::float8 * interval '1 millisecond')  
         where queue_id = v_queue_id and name = v_name
           and eta = v_token and eta > now()
        returning name, tag, payload, retry_count, last_error,
                  (extract(epoch from (eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
  LOOP
    RETURN timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond';
  END LOOP;
  -- Why it matched nothing, as the service explains it (whyNotModifiedStatement).
  /* why_not_modified */
      select exists (select 1 from "tasks" where queue_id = v_queue_id and name = v_name) as live,
             (exists (select 1 from "task_tombstones" where queue_id = v_queue_id and name = v_name)
              or held_by_form(v_name)) as deleted
    INTO v_live, v_deleted;
  IF v_live THEN
    RAISE EXCEPTION 'lease expired: the lease on task "%" has expired or is held by another lease; it could not be modified', v_name
      USING ERRCODE = 'TQ012', DETAIL = v_name, HINT = 'TASK_LEASE_EXPIRED';
  END IF;
  IF v_deleted THEN
    RAISE EXCEPTION 'tombstoned: task "%" has been deleted', v_name
      USING ERRCODE = 'TQ001', DETAIL = v_name, HINT = 'TOMBSTONED_TASK';
  END IF;
  RAISE EXCEPTION 'unknown task: task "%" does not exist', v_name
    USING ERRCODE = 'TQ013', DETAIL = coalesce(v_name, ''), HINT = 'UNKNOWN_TASK';
END
$$;

-- CREATE OR REPLACE replaces a function's SET clauses: 0015's fixed
-- search_path and planner settings again.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION modify_lease(text, text, timestamptz, integer) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  ALTER FUNCTION modify_lease(text, text, timestamptz, integer)
    SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
    SET plan_cache_mode = force_generic_plan SET jit = off;
END
$$;
-- END GENERATED modify_lease

-- BEGIN GENERATED generated_name_time (src/store/sql-api-functions.ts; do not edit)
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
  h := ((h * 51819 + (((h * 34283) & 65535) << 16)) & 4294967295);
  h := h # (h >> 13);
  h := ((h * 44597 + (((h * 49842) & 65535) << 16)) & 4294967295);
  h := h # (h >> 16);
  IF ((get_byte(b, 14)::bigint << 24) | (get_byte(b, 15) << 16) | (get_byte(b, 16) << 8) | get_byte(b, 17)) <> h THEN
    RETURN NULL;
  END IF;
  RETURN timestamptz 'epoch' + ((get_byte(b, 0)::bigint << 40)
         | (get_byte(b, 1)::bigint << 32)
         | (get_byte(b, 2)::bigint << 24)
         | (get_byte(b, 3)::bigint << 16)
         | (get_byte(b, 4)::bigint << 8)
         | get_byte(b, 5)) * interval '1 millisecond';
END
$$;
-- END GENERATED generated_name_time

-- BEGIN GENERATED generate_task_names (src/store/sql-api-functions.ts; do not edit)
CREATE OR REPLACE FUNCTION generate_task_names(n integer) RETURNS text[]
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  tb  bytea := substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::int8) from 3 for 6);
  ht  bigint;
  h   bigint;
  r   bytea;
  out text[] := '{}';
BEGIN
  ht := ((((((((((((2052178142::int8 # get_byte(tb, 0)) * 16777619 & 4294967295) # get_byte(tb, 1)) * 16777619 & 4294967295) # get_byte(tb, 2)) * 16777619 & 4294967295) # get_byte(tb, 3)) * 16777619 & 4294967295) # get_byte(tb, 4)) * 16777619 & 4294967295) # get_byte(tb, 5)) * 16777619 & 4294967295);
  FOR i IN 1..coalesce(n, 0) LOOP
    r := uuid_send(gen_random_uuid());
    h := ((((((((((((((((ht # get_byte(r, 0)) * 16777619 & 4294967295) # get_byte(r, 1)) * 16777619 & 4294967295) # get_byte(r, 2)) * 16777619 & 4294967295) # get_byte(r, 3)) * 16777619 & 4294967295) # get_byte(r, 4)) * 16777619 & 4294967295) # get_byte(r, 5)) * 16777619 & 4294967295) # get_byte(r, 10)) * 16777619 & 4294967295) # get_byte(r, 11)) * 16777619 & 4294967295);
    h := h # (h >> 16);
    h := ((h * 51819 + (((h * 34283) & 65535) << 16)) & 4294967295);
    h := h # (h >> 13);
    h := ((h * 44597 + (((h * 49842) & 65535) << 16)) & 4294967295);
    h := h # (h >> 16);
    out[i] := translate(encode(tb || substring(r from 1 for 6) || substring(r from 11 for 2) || substring(int8send(h) from 5 for 4), 'base64'), '+/', '-_');
  END LOOP;
  RETURN out;
END
$$;
REVOKE ALL ON FUNCTION generate_task_names(integer) FROM PUBLIC;

-- One name: the batch's generator, so the form is made in one place.
CREATE OR REPLACE FUNCTION generate_task_name() RETURNS text
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  RETURN (generate_task_names(1))[1];
END
$$;
-- END GENERATED generate_task_names

-- BEGIN GENERATED add_task (src/store/sql-api-functions.ts; do not edit)
DO $$
BEGIN
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION add_task(queue text, payload bytea, name text DEFAULT NULL, tag text DEFAULT NULL,
                                        eta timestamptz DEFAULT NULL)
    RETURNS text
    LANGUAGE sql VOLATILE SECURITY INVOKER
    AS 'SELECT (%I.add_tasks(queue, ARRAY[payload], ARRAY[name], ARRAY[tag], ARRAY[eta]))[1]'
  $f$, current_schema());
END
$$;
-- END GENERATED add_task

-- generated_name_check: since generate_task_name makes its name with
-- generate_task_names, nothing calls it (it was never granted to anyone).
DROP FUNCTION IF EXISTS generated_name_check(bytea);
