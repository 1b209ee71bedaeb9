-- GENERATED from the add statement and the push rules (src/store/sql-api/sql-api-push-function.ts) by `npm run generate:sql-api`: do not edit by hand.

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
  v_pairs   jsonb;
  v_pair    jsonb;
  v_count   bigint;
  v_bad_at  bigint;
  v_hbytes  bigint;
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
    -- A cron firing's name (issue 30): the cron service adds its firings
    -- through the service, so a caller here is a producer taking its place.
    IF v_name ~ '^cron-[A-Za-z0-9_-]+-[0-9]{8}T[0-9]{6}([0-9]{3})?Z$' THEN
      RAISE EXCEPTION 'task name "%" has the form of a cron firing (cron-<job>-<YYYYMMDDTHHMMSS>Z), which only the cron service adds', v_name
        USING ERRCODE = 'TQ005', DETAIL = v_name, HINT = 'INVALID_TASK_NAME';
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

  IF headers IS NOT NULL AND jsonb_typeof(headers) NOT IN ('object', 'array') THEN
    RAISE EXCEPTION 'headers: task "%": headers must be an object of names to values, or a list of [name, value] pairs', v_name
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;
  v_count := CASE jsonb_typeof(headers) WHEN 'array' THEN jsonb_array_length(headers)
                  WHEN 'object' THEN (SELECT count(*) FROM jsonb_object_keys(headers)) ELSE 0 END;
  IF v_count > 100 THEN
    RAISE EXCEPTION 'headers: task "%": % headers; a push task may have at most 100', v_name, v_count
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;
  v_pairs := CASE jsonb_typeof(headers)
               WHEN 'object' THEN (SELECT jsonb_agg(jsonb_build_array(e.key, e.value) ORDER BY e.ord)
                                     FROM jsonb_each(headers) WITH ORDINALITY AS e (key, value, ord))
               WHEN 'array' THEN headers END;
  SELECT min(p.ord) FILTER (WHERE CASE WHEN jsonb_typeof(p.value) <> 'array' THEN true
                                       WHEN jsonb_array_length(p.value) <> 2 THEN true
                                       WHEN jsonb_typeof(p.value -> 0) <> 'string' OR (p.value ->> 0) !~ '^[!#$%&''*+.^_`|~0-9A-Za-z-]+$' THEN true
                                       WHEN jsonb_typeof(p.value -> 1) <> 'string' OR (p.value ->> 1) !~ '^[\t\x20-\x7e\x80-\xff]*$' THEN true
                                       ELSE lower(p.value ->> 0) = ANY (ARRAY['expect', 'upgrade', 'keep-alive']::text[]) END),
         coalesce(sum(octet_length(p.value ->> 0) + octet_length(p.value ->> 1)), 0),
         -- Headers the service sets itself are dropped, as the service drops them.
         coalesce(jsonb_agg(p.value ORDER BY p.ord) FILTER (WHERE lower(p.value ->> 0) = ANY (ARRAY['x-appengine-failfast', 'x-appengine-current-namespace']::text[]) OR NOT (lower(p.value ->> 0) = ANY (ARRAY['content-length', 'host', 'transfer-encoding', 'connection']::text[]) OR starts_with(lower(p.value ->> 0), 'x-cloudtasks-') OR starts_with(lower(p.value ->> 0), 'x-appengine-') OR starts_with(lower(p.value ->> 0), 'x-cloudscheduler'))), '[]')
    INTO v_bad_at, v_hbytes, v_headers
    FROM jsonb_array_elements(coalesce(v_pairs, '[]')) WITH ORDINALITY AS p (value, ord);
  IF v_bad_at IS NOT NULL THEN
    v_pair := v_pairs -> (v_bad_at - 1)::integer;
    -- (CASE in parentheses: IF takes its condition up to the first THEN outside them.)
    IF (CASE WHEN jsonb_typeof(v_pair) = 'array' THEN jsonb_array_length(v_pair) <> 2 ELSE true END)
       OR jsonb_typeof(v_pair -> 0) IS DISTINCT FROM 'string' OR (v_pair ->> 0) !~ '^[!#$%&''*+.^_`|~0-9A-Za-z-]+$' THEN
      RAISE EXCEPTION 'headers: task "%": header name % is not a valid HTTP header name', v_name, left(coalesce((v_pair -> 0)::text, 'null'), 80)
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
    END IF;
    IF jsonb_typeof(v_pair -> 1) IS DISTINCT FROM 'string' OR (v_pair ->> 1) !~ '^[\t\x20-\x7e\x80-\xff]*$' THEN
      RAISE EXCEPTION 'headers: task "%": header % must have a string value of tab, space, visible ASCII and U+0080 to U+00FF only (no control characters, nothing above U+00FF): the HTTP client sends no other', v_name, v_pair ->> 0
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
    END IF;
    RAISE EXCEPTION 'headers: task "%": header % cannot be sent: the HTTP client refuses expect, upgrade, keep-alive (it manages the connection itself)', v_name, v_pair ->> 0
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;
  IF v_hbytes > 81920 THEN
    RAISE EXCEPTION 'headers: task "%": headers are % bytes; a push task''s headers may have at most 81920 (names and values)', v_name, v_hbytes
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;
  IF octet_length(v_body) > 0 AND v_method <> ALL (ARRAY['POST', 'PUT', 'PATCH']::text[]) THEN
    RAISE EXCEPTION 'payload: task "%": a % task cannot have a body (only POST, PUT, PATCH can)', v_name, v_method
      USING ERRCODE = 'TQ016', DETAIL = v_name, HINT = 'INVALID_PAYLOAD';
  END IF;
  IF length(v_url) > 2083 THEN
    RAISE EXCEPTION 'url: task "%": url is % characters; the limit is 2083', v_name, length(v_url)
      USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;
  -- The path's dot segments walked as the URL parser reads them
  -- (pathClimbsOut, push-url.ts): above its root, the task would leave the
  -- path of the queue's target URL.
  IF v_url ~ '(\.|%2[eE])(\.|%2[eE])' AND EXISTS (
       SELECT 1 FROM (SELECT sum(CASE WHEN s.seg ~ '^(\.|%2[eE])(\.|%2[eE])$' THEN -1
                                      WHEN s.seg ~ '^(\.|%2[eE])$' THEN 0 ELSE 1 END) OVER (ORDER BY s.ord) AS depth
                        FROM regexp_split_to_table(split_part(v_url, '?', 1), '[/\\]') WITH ORDINALITY AS s (seg, ord)
                       WHERE s.ord > 1) d
        WHERE d.depth < 0) THEN
    RAISE EXCEPTION 'url: task "%": url "%" climbs above its root with "..": it would leave the path of the queue''s target URL', v_name, left(v_url, 80)
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

-- CREATE OR REPLACE replaces a function's SET clauses: the schema's fixed
-- search_path and planner settings again (docs/sql-api.md).
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
