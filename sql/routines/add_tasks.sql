-- GENERATED from the add statement (src/store/add-statement.ts, src/store/sql-api/sql-api-add-function.ts) by `npm run generate:sql-api`: do not edit by hand.

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

  -- Names for the tasks given none, made in one call.
  -- (CASE: a two-dimensional names counts as none, and array_position
  -- refuses such an array; in parentheses, as IF takes its condition up to
  -- the first THEN outside them.)
  IF (CASE WHEN array_ndims(names) = 1 THEN array_position(names, NULL) IS NOT NULL ELSE true END) THEN
    v_made := generate_task_names(n);
  END IF;
  -- Each task's own rules in one pass over the arrays; only the first offending task is checked again,
  -- rule by rule, to raise that rule's error. A one-subscript read of a
  -- two-dimensional names, tags or etas is NULL.
  SELECT array_agg(c.task_name ORDER BY c.ord), array_agg(c.given ORDER BY c.ord), bool_or(c.given),
         min(c.ord) FILTER (WHERE c.bad)
    INTO v_names, v_given, v_named, v_bad_at
    FROM (SELECT u.ord, u.name IS NOT NULL AS given, coalesce(u.name, v_made[u.ord]) AS task_name,
                 (u.name IS NOT NULL AND (u.name !~ '^[a-zA-Z0-9_-]+$' OR length(u.name) > 500
                                          OR u.name ~ '^cron-[A-Za-z0-9_-]+-[0-9]{8}T[0-9]{6}([0-9]{3})?Z$'))
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
    -- A cron firing's name (issue 30): only the cron service adds one, never through this function.
    IF names[v_bad_at] IS NOT NULL THEN
      IF v_name ~ '^cron-[A-Za-z0-9_-]+-[0-9]{8}T[0-9]{6}([0-9]{3})?Z$' THEN
        RAISE EXCEPTION 'task name "%" has the form of a cron firing (cron-<job>-<YYYYMMDDTHHMMSS>Z), which only the cron service adds (task %)', v_name, v_bad_at
          USING ERRCODE = 'TQ005', DETAIL = v_name, HINT = 'INVALID_TASK_NAME';
      END IF;
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

-- CREATE OR REPLACE replaces a function's SET clauses: the schema's fixed
-- search_path and planner settings again (docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION add_tasks(text, bytea[], text[], text[], timestamptz[]) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  ALTER FUNCTION add_tasks(text, bytea[], text[], text[], timestamptz[])
    SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
    SET plan_cache_mode = force_generic_plan SET jit = off;
END
$$;

-- Nobody but the owner calls it unless granted (docs/sql-api.md, roles).
REVOKE ALL ON FUNCTION add_tasks(text, bytea[], text[], text[], timestamptz[]) FROM PUBLIC;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_schema() || '_producer') THEN
    EXECUTE format('GRANT EXECUTE ON FUNCTION %I.add_tasks(text, bytea[], text[], text[], timestamptz[]) TO %I', current_schema(), current_schema() || '_producer');
  END IF;
END
$$;
