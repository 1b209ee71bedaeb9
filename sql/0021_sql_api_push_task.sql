-- 0021: add_push_task, the SQL API's add of a push task.
--
-- Until now the SQL API added pull tasks only (add_task on a push queue
-- raises TQ004). add_push_task adds one push task, in the caller's
-- transaction, with the request the service stores for one (tasks.push:
-- url, method, headers as [name, value] pairs, the dispatch deadline and
-- the task's own retry options), so
-- the dispatcher delivers it as any other; the insert's trigger wakes it.
-- The rules of the request are not a second hand-written copy of the
-- service's (src/core/push-task.ts): the methods and those that carry a
-- body, the default method and URL (/_ah/queue/<queue>), the URL and header
-- patterns, the headers the service sets itself and drops, the URL length,
-- the 100 KiB of url + headers + body, the deadline's range and the retry
-- options' ranges and defaults are written
-- from their one definition, src/core/push-rules.ts, which push-task.ts
-- reads too (`npm run generate:sql-api -- 0021_sql_api_push_task
-- add_push_task`; test/sql-api/generated-functions.test.ts keeps the two
-- together). A body with GET, HEAD or DELETE raises the new TQ016
-- (INVALID_PAYLOAD). Granted to <schema>_producer only; SECURITY DEFINER
-- with the fixed search_path and planner settings of the others.

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
  held_from timestamptz;
  inserted  text;
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
  IF eta > now() + interval '2592000 seconds' THEN
    RAISE EXCEPTION 'eta: a task ETA lies more than 30 days ahead of the current time, got % (task "%")', eta, v_name
      USING ERRCODE = 'TQ008', DETAIL = v_name, HINT = 'INVALID_ETA';
  END IF;

  -- A given name in the generated form, made within the retention period,
  -- is a copy: held by its form whether its task is live or deleted.
  IF name IS NOT NULL THEN
    held_from := now() - tombstone_retention();
    IF generated_name_time(v_name) > held_from THEN
      IF EXISTS (SELECT 1 FROM tasks t WHERE t.queue_id = q.id AND t.name = v_name) THEN
        RAISE EXCEPTION 'task exists: task "%" already exists', v_name
          USING ERRCODE = 'TQ011', DETAIL = v_name, HINT = 'TASK_ALREADY_EXISTS';
      END IF;
      RAISE EXCEPTION 'task name "%" belongs to a recently deleted task and is still held', v_name
        USING ERRCODE = 'TQ001', DETAIL = v_name, HINT = 'TOMBSTONED_TASK';
    END IF;
  END IF;

  -- The request as the service stores it (PushRequest in push-task.ts).
  v_push := jsonb_build_object('url', v_url, 'method', v_method, 'headers', v_headers, 'retry', v_retry,
                               'deadlineSeconds', dispatch_deadline_seconds);
  -- The trigger of 0007/0011 refuses a tombstoned name (TQ001), keeps the
  -- storage counters and limits (TQ002) and wakes the dispatcher; a live
  -- name is skipped here and named below (TQ011).
  INSERT INTO tasks AS t (queue_id, name, eta, payload, push)
  VALUES (q.id, v_name, coalesce(eta, now()), v_body, v_push)
  ON CONFLICT DO NOTHING
  RETURNING t.name INTO inserted;
  IF inserted IS NULL THEN
    RAISE EXCEPTION 'task exists: task "%" already exists', v_name
      USING ERRCODE = 'TQ011', DETAIL = v_name, HINT = 'TASK_ALREADY_EXISTS';
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

-- The fixed search_path of sql/0015 (this schema, pg_catalog, pg_temp
-- last) again for every function of the schema that lacks it:
-- claim_push_tasks_after_delivery (sql/0019) was created with SET
-- search_path FROM CURRENT, which leaves pg_temp implicitly first. Except
-- the three name-form helpers that read no table (see sql/0015).
DO $$
DECLARE
  fn regprocedure;
BEGIN
  FOR fn IN SELECT p.oid::regprocedure FROM pg_proc p
             WHERE p.pronamespace = current_schema()::regnamespace
               AND p.proname NOT IN ('generated_name_check', 'generated_name_time', 'generate_task_name')
               AND NOT coalesce(p.proconfig @> ARRAY[format('search_path=%I, pg_catalog, pg_temp', current_schema())], false) LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_catalog, pg_temp', fn, current_schema());
  END LOOP;
END
$$;
