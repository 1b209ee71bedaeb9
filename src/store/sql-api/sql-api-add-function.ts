import { sql, type RawBuilder } from 'kysely';
import { LIMITS } from '../../core/limits.js';
import { addStatement, type AddShape } from '../add-statement.js';
import { batchSizeCheck, READ_COMMITTED_CHECK } from './sql-api-checks.js';
import { indent, routineOf, statementText, tableOf, v } from './sql-api-text.js';
import { TASK_NAME_CHARS, TASK_NAME_MAX_LENGTH, TASK_NAME_PATTERN } from '../../core/task.js';
import { isCronTaskNameSql, reservedCronNameCheck } from './sql-api-reserved-names.js';

/**
 * The add statement (addStatement) as a generated function runs it, in an
 * IF branch: its values are the function's variables, and its answer goes
 * into v_stored, v_now_usec and v_refused, which the function declares with
 * v_queue_id. `count` is how many tasks `input` yields.
 */
export function addStatementText(shape: AddShape, count: string, input: RawBuilder<unknown>): string {
  return indent(
    statementText(
      addStatement(tableOf, routineOf, shape, {
        queueId: v('v_queue_id'),
        count: v(count),
        input,
        into: v(' INTO v_stored, v_now_usec, v_refused'),
      }),
    ),
    4,
  );
}

/**
 * add_tasks: its own checks are those of its arguments and
 * of each task alone (batch size, name pattern and length, payload and tag
 * size, an ETA after 1970), written from their one definition
 * (src/core/limits.ts, the name rule of src/core/task.ts) as one pass over
 * the arrays; then the service's own add statement
 * (add-statement.ts), generated from its builder, does the rest: the ETA
 * horizon, a name given twice, held by its form or live, and through its
 * trigger tombstoned names and storage limits. PostgreSQL's regular
 * expressions take bounds up to 255, so the name's length is checked apart
 * from its characters.
 */
export function addTasksFunction(): string {
  const input = (
    named: boolean,
  ) => sql`/* add_tasks_input */ select u.name, nullif(u.tag, '') as tag, coalesce(u.payload, '\\x'::bytea) as payload,
       -- Tasks without an ETA are leasable now, one microsecond apart in the
       -- order given (FIFO), like the service's.
       coalesce(u.eta, now() + (u.ord - 1) * interval '1 microsecond') as eta, u.ord${named ? sql`, u.given` : sql``}
  from unnest(v_names, CASE WHEN array_ndims(tags) = 1 THEN tags END, payloads, etas${named ? sql`, v_given` : sql``})
       WITH ORDINALITY AS u (name, tag, payload, eta${named ? sql`, given` : sql``}, ord)`;
  const statement = (shape: AddShape) => addStatementText(shape, 'n', input(shape.named));
  return `CREATE OR REPLACE FUNCTION add_tasks(queue text, payloads bytea[], names text[] DEFAULT NULL, tags text[] DEFAULT NULL,
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
${batchSizeCheck(LIMITS.maxTasksPerAdd, 'added')}  IF array_ndims(payloads) > 1 OR coalesce(cardinality(names), n) <> n OR coalesce(cardinality(tags), n) <> n
     OR coalesce(cardinality(etas), n) <> n THEN
    RAISE EXCEPTION 'arguments: names, tags and etas must be NULL or one-dimensional arrays as long as payloads (%)', n
      USING ERRCODE = 'TQ015', DETAIL = n::text, HINT = 'INVALID_REQUEST';
  END IF;
${READ_COMMITTED_CHECK}
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
                 (u.name IS NOT NULL AND (u.name !~ '^[${TASK_NAME_CHARS}]+$' OR length(u.name) > ${TASK_NAME_MAX_LENGTH}
                                          OR ${isCronTaskNameSql('u.name')}))
                 OR octet_length(u.payload) > ${LIMITS.maxTaskBytes}
                 OR octet_length(nullif(u.tag, '')) > ${LIMITS.maxTagBytes}
                 OR (u.eta IS NOT NULL AND (NOT isfinite(u.eta) OR u.eta < timestamptz 'epoch')) AS bad
            FROM unnest(payloads, CASE WHEN array_ndims(names) = 1 THEN names END,
                        CASE WHEN array_ndims(tags) = 1 THEN tags END,
                        CASE WHEN array_ndims(etas) = 1 THEN etas END) WITH ORDINALITY AS u (payload, name, tag, eta, ord)) c;

  IF v_bad_at IS NOT NULL THEN
    v_name := v_names[v_bad_at];
    IF names[v_bad_at] IS NOT NULL AND (v_name !~ '^[${TASK_NAME_CHARS}]+$' OR length(v_name) > ${TASK_NAME_MAX_LENGTH}) THEN
      RAISE EXCEPTION 'task name: must match ${TASK_NAME_PATTERN.source} (letters, digits, _ and -; 1 to ${TASK_NAME_MAX_LENGTH}), got "%" (task %)',
        left(v_name, 60), v_bad_at
        USING ERRCODE = 'TQ005', DETAIL = left(v_name, ${TASK_NAME_MAX_LENGTH}), HINT = 'INVALID_TASK_NAME';
    END IF;
    -- A cron firing's name (issue 30): only the cron service adds one, never through this function.
    IF names[v_bad_at] IS NOT NULL THEN
${reservedCronNameCheck('v_name', '      ', 'v_bad_at')}    END IF;
    v_payload := coalesce(payloads[v_bad_at], '\\x'::bytea);
    IF octet_length(v_payload) > ${LIMITS.maxTaskBytes} THEN
      RAISE EXCEPTION 'task size: task "%": payload is % bytes; the limit is ${LIMITS.maxTaskBytes}', v_name, octet_length(v_payload)
        USING ERRCODE = 'TQ006', DETAIL = v_name, HINT = 'TASK_TOO_LARGE';
    END IF;
    v_tag := nullif(tags[v_bad_at], '');
    IF octet_length(v_tag) > ${LIMITS.maxTagBytes} THEN
      RAISE EXCEPTION 'tag size: tag must be <= ${LIMITS.maxTagBytes} bytes, got a % byte tag (task "%")', octet_length(v_tag), v_name
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
${statement({ named: true, checkForm: true, push: false })};
  ELSE
${statement({ named: false, checkForm: true, push: false })};
  END IF;
  RETURN v_names;
END
$$;
`;
}

/**
 * refuse_add: the error of an add statement that stored fewer tasks than
 * it was given (add-statement.ts), in the order the service checks: an ETA
 * beyond the horizon, a name given twice, a name held by its form (live:
 * TASK_ALREADY_EXISTS, else TOMBSTONED_TASK), a live name the insert
 * skipped. It always raises; the statement, and so the add, fails. When it
 * runs for the first three, the statement inserted nothing, so a look at
 * tasks sees only other adds' rows.
 */
export function refuseAddFunction(): string {
  return `CREATE OR REPLACE FUNCTION refuse_add(p_queue_id integer, p_count integer, p_stored bigint, p_late text, p_given text[],
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
    RAISE EXCEPTION 'eta: a task ETA lies more than ${LIMITS.maxEtaAheadMs / 86_400_000} days ahead of the current time (task "%")', p_late
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
`;
}

/**
 * add_task: one task, add_tasks with one-element arrays. A plain
 * SQL function (no SECURITY DEFINER, no SET clause) that calls
 * add_tasks by its schema-qualified name, so a caller's search_path cannot
 * put another add_tasks in its place and PostgreSQL can inline it into the
 * caller's query: one function call and one round of settings less per
 * task (a single add about 10% less server time, pgbench). add_tasks
 * itself still runs with its owner's rights and fixed settings, and the
 * caller needs EXECUTE on it, as the producer role has.
 */
export function addTaskFunction(): string {
  return `DO $$
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
`;
}
