import { LIMITS } from '../core/limits.js';
import { READ_COMMITTED_CHECK } from './sql-api-checks.js';
import { TASK_NAME_CHARS, TASK_NAME_MAX_LENGTH, TASK_NAME_PATTERN } from '../core/task.js';

/**
 * add_tasks as sql/0017 defined it, its per-task checks one pass over the
 * arrays since sql/0022, with the limits it checks before its insert written from their one definition (src/core/limits.ts, the name
 * rule of src/core/task.ts) instead of copied: batch size, name pattern and
 * length, payload and tag size, the ETA horizon. PostgreSQL's regular
 * expressions take bounds up to 255, so the name's length is checked apart
 * from its characters. Its insert and its name checks (duplicates, names
 * held by their form, live names) are still its own: the service's insert
 * (insert-tasks.ts) takes its payloads as one binary bytea, and a live name
 * is a unique violation there but TQ011 here (docs/sql-api.md, "Design").
 */
export function addTasksFunction(): string {
  return `CREATE OR REPLACE FUNCTION add_tasks(queue text, payloads bytea[], names text[] DEFAULT NULL, tags text[] DEFAULT NULL,
                          etas timestamptz[] DEFAULT NULL)
RETURNS text[]
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_variable
DECLARE
  q         queues;
  n         integer := coalesce(cardinality(payloads), 0);
  out_names text[] := '{}';
  given     text[] := '{}';
  task_name text;
  task_tag  text;
  payload   bytea;
  eta       timestamptz;
  held      text;
  inserted  text[];
  held_from timestamptz;
  bad_at    bigint;
BEGIN
  q := sql_api_queue(queue, false, 'add');
  IF q.mode <> 'pull' THEN
    RAISE EXCEPTION 'queue mode: queue "%" is a push queue; the SQL API adds pull tasks only', queue
      USING ERRCODE = 'TQ004', DETAIL = queue, HINT = 'INVALID_QUEUE_MODE';
  END IF;
  IF n = 0 THEN
    RETURN '{}';
  END IF;
  IF n > ${LIMITS.maxTasksPerAdd} THEN
    RAISE EXCEPTION 'batch size: at most ${LIMITS.maxTasksPerAdd} tasks may be added at once, got %', n
      USING ERRCODE = 'TQ009', DETAIL = n::text, HINT = 'TOO_MANY_TASKS';
  END IF;
  IF array_ndims(payloads) > 1 OR coalesce(cardinality(names), n) <> n OR coalesce(cardinality(tags), n) <> n
     OR coalesce(cardinality(etas), n) <> n THEN
    RAISE EXCEPTION 'arguments: names, tags and etas must be NULL or one-dimensional arrays as long as payloads (%)', n
      USING ERRCODE = 'TQ015', DETAIL = n::text, HINT = 'INVALID_REQUEST';
  END IF;
${READ_COMMITTED_CHECK}
  -- The tasks' rules are checked in one pass over the arrays, not element
  -- by element (subscripts and appends in a loop cost O(n) each), and only
  -- the first offending task is checked again below, rule by rule in the
  -- order the loop of 0017 checked them, to raise that rule's error. A
  -- one-subscript read of a two-dimensional names, tags or etas is NULL,
  -- as it was in that loop.
  SELECT array_agg(c.task_name ORDER BY c.ord),
         array_agg(c.task_name ORDER BY c.ord) FILTER (WHERE c.given),
         min(c.ord) FILTER (WHERE c.bad)
    INTO out_names, given, bad_at
    FROM (SELECT u.ord, u.name IS NOT NULL AS given, coalesce(u.name, generate_task_name()) AS task_name,
                 (u.name IS NOT NULL AND (u.name !~ '^[${TASK_NAME_CHARS}]+$' OR length(u.name) > ${TASK_NAME_MAX_LENGTH}))
                 OR octet_length(u.payload) > ${LIMITS.maxTaskBytes}
                 OR octet_length(nullif(u.tag, '')) > ${LIMITS.maxTagBytes}
                 OR (u.eta IS NOT NULL AND (NOT isfinite(u.eta) OR u.eta < timestamptz 'epoch'
                                            OR u.eta > now() + interval '${LIMITS.maxEtaAheadMs / 1000} seconds')) AS bad
            FROM unnest(payloads, CASE WHEN array_ndims(names) = 1 THEN names END,
                        CASE WHEN array_ndims(tags) = 1 THEN tags END,
                        CASE WHEN array_ndims(etas) = 1 THEN etas END) WITH ORDINALITY AS u (payload, name, tag, eta, ord)) c;
  given := coalesce(given, '{}');

  IF bad_at IS NOT NULL THEN
    task_name := out_names[bad_at];
    IF names[bad_at] IS NOT NULL AND (task_name !~ '^[${TASK_NAME_CHARS}]+$' OR length(task_name) > ${TASK_NAME_MAX_LENGTH}) THEN
      RAISE EXCEPTION 'task name: must match ${TASK_NAME_PATTERN.source} (letters, digits, _ and -; 1 to ${TASK_NAME_MAX_LENGTH}), got "%" (task %)',
        left(task_name, 60), bad_at
        USING ERRCODE = 'TQ005', DETAIL = left(task_name, ${TASK_NAME_MAX_LENGTH}), HINT = 'INVALID_TASK_NAME';
    END IF;
    payload := coalesce(payloads[bad_at], '\\x'::bytea);
    IF octet_length(payload) > ${LIMITS.maxTaskBytes} THEN
      RAISE EXCEPTION 'task size: task "%": payload is % bytes; the limit is ${LIMITS.maxTaskBytes}', task_name, octet_length(payload)
        USING ERRCODE = 'TQ006', DETAIL = task_name, HINT = 'TASK_TOO_LARGE';
    END IF;
    task_tag := nullif(tags[bad_at], '');
    IF octet_length(task_tag) > ${LIMITS.maxTagBytes} THEN
      RAISE EXCEPTION 'tag size: tag must be <= ${LIMITS.maxTagBytes} bytes, got a % byte tag (task "%")', octet_length(task_tag), task_name
        USING ERRCODE = 'TQ007', DETAIL = task_name, HINT = 'INVALID_TAG';
    END IF;
    eta := etas[bad_at];
    IF eta IS NOT NULL AND (NOT isfinite(eta) OR eta < timestamptz 'epoch') THEN
      RAISE EXCEPTION 'eta: must be a time after 1970, got % (task "%")', eta, task_name
        USING ERRCODE = 'TQ008', DETAIL = task_name, HINT = 'INVALID_ETA';
    END IF;
    IF eta > now() + interval '${LIMITS.maxEtaAheadMs / 1000} seconds' THEN
      RAISE EXCEPTION 'eta: a task ETA lies more than ${LIMITS.maxEtaAheadMs / 86_400_000} days ahead of the current time, got % (task "%")', eta, task_name
        USING ERRCODE = 'TQ008', DETAIL = task_name, HINT = 'INVALID_ETA';
    END IF;
  END IF;

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
  -- Names all generated here cannot be live (a clock and 64 random bits;
  -- the service's add leaves that case to the primary key as well), so
  -- that insert goes without ON CONFLICT, whose speculative insertion cost
  -- it about two fifths more per row (sql/0022).
  IF cardinality(given) = 0 THEN
    INSERT INTO tasks AS t (queue_id, name, eta, tag, payload)
    SELECT q.id, i.name, coalesce(i.eta, now() + (i.ord - 1) * interval '1 microsecond'), nullif(i.tag, ''),
           coalesce(i.payload, '\\x'::bytea)
      FROM unnest(out_names, CASE WHEN array_ndims(tags) = 1 THEN tags END, payloads, etas)
           WITH ORDINALITY AS i (name, tag, payload, eta, ord);
    RETURN out_names;
  END IF;
  -- A live name is skipped here and named below (TQ011), not left to the
  -- primary key's unique_violation, which names neither rule nor task clearly.
  WITH stored_rows AS (
    INSERT INTO tasks AS t (queue_id, name, eta, tag, payload)
    SELECT q.id, i.name, coalesce(i.eta, now() + (i.ord - 1) * interval '1 microsecond'), nullif(i.tag, ''),
           coalesce(i.payload, '\\x'::bytea)
      FROM unnest(out_names, CASE WHEN array_ndims(tags) = 1 THEN tags END, payloads, etas)
           WITH ORDINALITY AS i (name, tag, payload, eta, ord)
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
`;
}
