-- GENERATED from deleteStatement (src/store/delete-tasks.ts) by `npm run generate:sql-api`: do not edit by hand.

CREATE OR REPLACE FUNCTION delete_tasks(queue text, names text[])
RETURNS boolean[]
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_column
DECLARE
  q           queues;
  r           record;
  n           integer := coalesce(cardinality(names), 0);
  v_queue_id  integer;
  v_names     text[] := delete_tasks.names;
  v_untracked text[];
  v_deleted   text[] := '{}';
  v_count     integer := 0;
  v_held_from timestamptz;
BEGIN
  SELECT * INTO q FROM queues WHERE queues.name = queue AND queues.active;
  IF NOT FOUND THEN
    q := sql_api_queue(queue, false, 'delete');  -- raises the error that fits
  END IF;
  IF n = 0 THEN
    RETURN '{}';
  END IF;
  -- As add_tasks: a two-dimensional array is refused, not read flat.
  IF array_ndims(names) > 1 THEN
    RAISE EXCEPTION 'arguments: names must be a one-dimensional array, got % dimensions', array_ndims(names)
      USING ERRCODE = 'TQ015', DETAIL = array_ndims(names)::text, HINT = 'INVALID_REQUEST';
  END IF;
  IF n > 1000 THEN
    RAISE EXCEPTION 'batch size: at most 1000 tasks may be deleted at once, got %', n
      USING ERRCODE = 'TQ009', DETAIL = n::text, HINT = 'TOO_MANY_TASKS';
  END IF;
  v_queue_id := q.id;
  -- held_by_form, with the retention read once for the whole call.
  v_held_from := now() - tombstone_retention();
  v_untracked := ARRAY(SELECT x FROM unnest(v_names) x WHERE generated_name_time(x) > v_held_from);
  -- The service's delete of each shape (src/store/delete-tasks.ts),
  -- generated from its builder.
  IF cardinality(v_untracked) = n THEN
    FOR r IN
      /* delete_tasks_untracked */
            delete from "tasks"
             where queue_id = v_queue_id and name = any(v_names::text[])
            returning name
    LOOP
      v_count := v_count + 1;
      v_deleted[v_count] := r.name;
    END LOOP;
  ELSE
    FOR r IN
      /* delete_tasks */
          with gone as (
            delete from "tasks"
             where queue_id = v_queue_id and name = any(v_names::text[])
            returning name, retry_count
          ), held as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id::int4, name, 'deleted', retry_count from gone where name <> all(v_untracked::text[])
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          )
          select name from gone
    LOOP
      v_count := v_count + 1;
      v_deleted[v_count] := r.name;
    END LOOP;
  END IF;
  RETURN ARRAY(SELECT coalesce(x = ANY (v_deleted), false) FROM unnest(v_names) WITH ORDINALITY AS u (x, i) ORDER BY i);
END
$$;

-- CREATE OR REPLACE replaces a function's SET clauses: the schema's fixed
-- search_path and planner settings again (docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION delete_tasks(text, text[]) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  ALTER FUNCTION delete_tasks(text, text[])
    SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
    SET plan_cache_mode = force_generic_plan SET jit = off;
END
$$;

-- Nobody but the owner calls it unless granted (docs/sql-api.md, roles).
REVOKE ALL ON FUNCTION delete_tasks(text, text[]) FROM PUBLIC;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_schema() || '_consumer') THEN
    EXECUTE format('GRANT EXECUTE ON FUNCTION %I.delete_tasks(text, text[]) TO %I', current_schema(), current_schema() || '_consumer');
  END IF;
END
$$;
