-- GENERATED from modifyLeaseStatement and whyNotModifiedStatement (src/store/modify-lease.ts) by `npm run generate:sql-api`: do not edit by hand.

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
             exists (select 1 from "task_tombstones" where queue_id = v_queue_id and name = v_name) as deleted
    INTO v_live, v_deleted;
  IF v_live THEN
    RAISE EXCEPTION 'lease expired: the lease on task "%" has expired or is held by another lease; it could not be modified', v_name
      USING ERRCODE = 'TQ012', DETAIL = v_name, HINT = 'TASK_LEASE_EXPIRED';
  END IF;
  IF v_deleted OR held_by_form(v_name) THEN
    RAISE EXCEPTION 'tombstoned: task "%" has been deleted', v_name
      USING ERRCODE = 'TQ001', DETAIL = v_name, HINT = 'TOMBSTONED_TASK';
  END IF;
  RAISE EXCEPTION 'unknown task: task "%" does not exist', v_name
    USING ERRCODE = 'TQ013', DETAIL = coalesce(v_name, ''), HINT = 'UNKNOWN_TASK';
END
$$;

-- CREATE OR REPLACE replaces a function's SET clauses: the schema's fixed
-- search_path and planner settings again (docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION modify_lease(text, text, timestamptz, integer) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  ALTER FUNCTION modify_lease(text, text, timestamptz, integer)
    SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
    SET plan_cache_mode = force_generic_plan SET jit = off;
END
$$;

-- Nobody but the owner calls it unless granted (docs/sql-api.md, roles).
REVOKE ALL ON FUNCTION modify_lease(text, text, timestamptz, integer) FROM PUBLIC;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_schema() || '_consumer') THEN
    EXECUTE format('GRANT EXECUTE ON FUNCTION %I.modify_lease(text, text, timestamptz, integer) TO %I', current_schema(), current_schema() || '_consumer');
  END IF;
END
$$;
