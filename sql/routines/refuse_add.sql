-- GENERATED from the add statement (src/store/sql-api/sql-api-add-function.ts) by `npm run generate:sql-api`: do not edit by hand.

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
