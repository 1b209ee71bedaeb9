import {
  BODY_METHODS,
  DEFAULT_PUSH_METHOD,
  DEFAULT_PUSH_URL_PREFIX,
  DOUBLE_DOT_SEGMENT,
  DROPPED_HEADERS,
  HEADER_NAME,
  HEADER_VALUE,
  MAYBE_DOUBLE_DOT,
  PATH_SEPARATOR,
  PUSH_LIMITS,
  PUSH_METHODS,
  REFUSED_HEADERS,
  RETRY_OPTION_RULES,
  SINGLE_DOT_SEGMENT,
  URL_PATH,
} from '../../core/push/push-rules.js';
import { DEFAULT_RETRY_PARAMETERS } from '../../core/queue-config.js';
import { sql } from 'kysely';
import { READ_COMMITTED_CHECK } from './sql-api-checks.js';
import { addStatementText } from './sql-api-add-function.js';
import { TASK_NAME_CHARS, TASK_NAME_MAX_LENGTH, TASK_NAME_PATTERN } from '../../core/task.js';
import { reservedCronNameCheck } from './sql-api-reserved-names.js';

/** A SQL string literal of `text` (standard_conforming_strings: only quotes are doubled). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
/** A SQL text[] of `items`. */
const textArray = (items: readonly string[]) => `ARRAY[${items.map(literal).join(', ')}]::text[]`;

/** The signature of add_push_task, as GRANT and ALTER name it. */
export const ADD_PUSH_TASK_SIGNATURE =
  'add_push_task(text, text, text, jsonb, bytea, text, timestamptz, double precision, jsonb)';

/**
 * add_push_task: one push task, with the rules of its request written from
 * their one definition (src/core/push/push-rules.ts, which push-task.ts checks
 * for the service): the methods and which carry a body, the default method
 * and URL, the URL and header patterns, the URL's dot segments, the
 * headers' count and bytes, the headers dropped and refused, the 100 KiB of
 * url + headers + body, the URL length, the dispatch deadline's range. The
 * name, payload and ETA limits come from limits.ts and task.ts as
 * add_tasks's do. The request is stored as the service stores it (tasks.push:
 * url, method, headers as [name, value] pairs, retry, deadlineSeconds), so
 * the dispatcher delivers it as any other push task; the insert wakes it
 * through the same trigger. retry_options takes the task's retryOptions
 * with their ranges (RETRY_OPTION_RULES) and defaults
 * (DEFAULT_RETRY_PARAMETERS). Form params are the service's only
 * (docs/sql-api.md, "Not yet").
 */
export function addPushTaskFunction(): string {
  const methods = PUSH_METHODS.join(', ');
  const statement = (named: boolean) =>
    addStatementText(
      { named, checkForm: true, push: true },
      '1',
      sql`/* add_push_task_input */ select v_name as name, null::text as tag, v_body as payload, coalesce(eta, now()) as eta, 1::int8 as ord${named ? sql`, true as given` : sql``}, v_push as push`,
    );
  return `CREATE OR REPLACE FUNCTION add_push_task(queue text, url text DEFAULT NULL, method text DEFAULT '${DEFAULT_PUSH_METHOD}',
                              headers jsonb DEFAULT NULL, payload bytea DEFAULT NULL, name text DEFAULT NULL,
                              eta timestamptz DEFAULT NULL, dispatch_deadline_seconds double precision DEFAULT NULL,
                              retry_options jsonb DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_variable
DECLARE
  q         queues;
  v_method  text := coalesce(method, '${DEFAULT_PUSH_METHOD}');
  v_url     text;
  v_name    text := name;
  v_body    bytea := coalesce(payload, '\\x'::bytea);
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
${READ_COMMITTED_CHECK}  -- The queue's base URL as the service wrote it (its <target-url>, else
  -- TASKQUEUE_PUSH_BASE_URL): written as null, the task has nowhere to go.
  IF q.push_settings ? 'baseUrl' AND q.push_settings -> 'baseUrl' = 'null'::jsonb THEN
    RAISE EXCEPTION 'target url: push queue "%" has nowhere to deliver: set <target-url> (target_url in queue.yaml) on the queue or TASKQUEUE_PUSH_BASE_URL', queue
      USING ERRCODE = 'TQ015', DETAIL = queue, HINT = 'INVALID_REQUEST';
  END IF;

  IF v_name IS NULL THEN
    v_name := generate_task_name();
  ELSE
    IF v_name !~ '^[${TASK_NAME_CHARS}]+$' OR length(v_name) > ${TASK_NAME_MAX_LENGTH} THEN
      RAISE EXCEPTION 'task name: must match ${TASK_NAME_PATTERN.source} (letters, digits, _ and -; 1 to ${TASK_NAME_MAX_LENGTH}), got "%"', left(v_name, 60)
        USING ERRCODE = 'TQ005', DETAIL = left(v_name, ${TASK_NAME_MAX_LENGTH}), HINT = 'INVALID_TASK_NAME';
    END IF;
    -- A cron firing's name (issue 30): the cron service adds its firings
    -- through the service, so a caller here is a producer taking its place.
${reservedCronNameCheck('v_name', '    ')}  END IF;
  IF v_method = 'PUSH' THEN
    v_method := '${DEFAULT_PUSH_METHOD}';
  END IF;
  IF v_method <> ALL (${textArray(PUSH_METHODS)}) THEN
    RAISE EXCEPTION 'method: task "%": method must be one of ${methods}, got "%"', v_name, left(v_method, 60)
      USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;
  v_url := coalesce(url, ${literal(DEFAULT_PUSH_URL_PREFIX)} || queue);
  IF v_url !~ ${literal(URL_PATH.source)} THEN
    RAISE EXCEPTION 'url: task "%": url must be a path starting with "/" (printable characters, no spaces, no fragment), got "%"', v_name, left(v_url, 80)
      USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;

${headerChecks()}
  IF octet_length(v_body) > 0 AND v_method <> ALL (${textArray(BODY_METHODS)}) THEN
    RAISE EXCEPTION 'payload: task "%": a % task cannot have a body (only ${BODY_METHODS.join(', ')} can)', v_name, v_method
      USING ERRCODE = 'TQ016', DETAIL = v_name, HINT = 'INVALID_PAYLOAD';
  END IF;
  IF length(v_url) > ${PUSH_LIMITS.maxUrlLength} THEN
    RAISE EXCEPTION 'url: task "%": url is % characters; the limit is ${PUSH_LIMITS.maxUrlLength}', v_name, length(v_url)
      USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;
  -- The path's dot segments walked as the URL parser reads them
  -- (pathClimbsOut, push-url.ts): above its root, the task would leave the
  -- path of the queue's target URL.
  IF v_url ~ ${literal(MAYBE_DOUBLE_DOT.source)} AND EXISTS (
       SELECT 1 FROM (SELECT sum(CASE WHEN s.seg ~ ${literal(DOUBLE_DOT_SEGMENT.source)} THEN -1
                                      WHEN s.seg ~ ${literal(SINGLE_DOT_SEGMENT.source)} THEN 0 ELSE 1 END) OVER (ORDER BY s.ord) AS depth
                        FROM regexp_split_to_table(split_part(v_url, '?', 1), ${literal(PATH_SEPARATOR.source)}) WITH ORDINALITY AS s (seg, ord)
                       WHERE s.ord > 1) d
        WHERE d.depth < 0) THEN
    RAISE EXCEPTION 'url: task "%": url "%" climbs above its root with "..": it would leave the path of the queue''s target URL', v_name, left(v_url, 80)
      USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';
  END IF;
  SELECT octet_length(v_url) + octet_length(v_body)
         + coalesce(sum(octet_length(x.value ->> 0) + octet_length(x.value ->> 1)), 0)
    INTO v_size FROM jsonb_array_elements(v_headers) AS x (value);
  IF v_size > ${PUSH_LIMITS.maxTaskBytes} THEN
    RAISE EXCEPTION 'task size: task "%": url, headers and body are % bytes; a push task may have at most ${PUSH_LIMITS.maxTaskBytes}', v_name, v_size
      USING ERRCODE = 'TQ006', DETAIL = v_name, HINT = 'TASK_TOO_LARGE';
  END IF;
${retryChecks()}
  IF dispatch_deadline_seconds IS NOT NULL AND (dispatch_deadline_seconds = 'NaN' OR dispatch_deadline_seconds < ${PUSH_LIMITS.minDeadlineSeconds}
     OR dispatch_deadline_seconds > ${PUSH_LIMITS.maxDeadlineSeconds}) THEN
    RAISE EXCEPTION 'dispatch deadline: task "%": must be from ${PUSH_LIMITS.minDeadlineSeconds} to ${PUSH_LIMITS.maxDeadlineSeconds} seconds, got %', v_name, dispatch_deadline_seconds
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
${statement(true)};
  ELSE
${statement(false)};
  END IF;
  RETURN v_name;
END
$$;
`;
}

/**
 * headers: an object of names to values, or [name, value] pairs (the order
 * given kept; an object's is jsonb's own, sorted by name). The count is
 * checked before a header is read, then every pair in one pass: whether it
 * breaks a rule (only the first that does is checked again, rule by rule,
 * for its error), its bytes, and the pairs kept, aggregated once (appending
 * pair by pair copied the list each time: 8,000 pairs took 21.6 s).
 */
function headerChecks(): string {
  const lk = `lower(p.value ->> 0)`;
  const dropped = `(${lk} = ANY (${textArray(DROPPED_HEADERS.names)}) OR ${DROPPED_HEADERS.prefixes.map((x) => `starts_with(${lk}, ${literal(x)})`).join(' OR ')})`;
  const kept = `${lk} = ANY (${textArray(DROPPED_HEADERS.kept)}) OR NOT ${dropped}`;
  const raise = (message: string, ...values: string[]) =>
    `RAISE EXCEPTION 'headers: task "%": ${message}', ${['v_name', ...values].join(', ')}
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';`;
  return `  IF headers IS NOT NULL AND jsonb_typeof(headers) NOT IN ('object', 'array') THEN
    ${raise('headers must be an object of names to values, or a list of [name, value] pairs')}
  END IF;
  v_count := CASE jsonb_typeof(headers) WHEN 'array' THEN jsonb_array_length(headers)
                  WHEN 'object' THEN (SELECT count(*) FROM jsonb_object_keys(headers)) ELSE 0 END;
  IF v_count > ${PUSH_LIMITS.maxHeaders} THEN
    ${raise(`% headers; a push task may have at most ${PUSH_LIMITS.maxHeaders}`, 'v_count')}
  END IF;
  v_pairs := CASE jsonb_typeof(headers)
               WHEN 'object' THEN (SELECT jsonb_agg(jsonb_build_array(e.key, e.value) ORDER BY e.ord)
                                     FROM jsonb_each(headers) WITH ORDINALITY AS e (key, value, ord))
               WHEN 'array' THEN headers END;
  SELECT min(p.ord) FILTER (WHERE CASE WHEN jsonb_typeof(p.value) <> 'array' THEN true
                                       WHEN jsonb_array_length(p.value) <> 2 THEN true
                                       WHEN jsonb_typeof(p.value -> 0) <> 'string' OR (p.value ->> 0) !~ ${literal(HEADER_NAME.source)} THEN true
                                       WHEN jsonb_typeof(p.value -> 1) <> 'string' OR (p.value ->> 1) !~ ${literal(HEADER_VALUE.source)} THEN true
                                       ELSE ${lk} = ANY (${textArray(REFUSED_HEADERS)}) END),
         coalesce(sum(octet_length(p.value ->> 0) + octet_length(p.value ->> 1)), 0),
         -- Headers the service sets itself are dropped, as the service drops them.
         coalesce(jsonb_agg(p.value ORDER BY p.ord) FILTER (WHERE ${kept}), '[]')
    INTO v_bad_at, v_hbytes, v_headers
    FROM jsonb_array_elements(coalesce(v_pairs, '[]')) WITH ORDINALITY AS p (value, ord);
  IF v_bad_at IS NOT NULL THEN
    v_pair := v_pairs -> (v_bad_at - 1)::integer;
    -- (CASE in parentheses: IF takes its condition up to the first THEN outside them.)
    IF (CASE WHEN jsonb_typeof(v_pair) = 'array' THEN jsonb_array_length(v_pair) <> 2 ELSE true END)
       OR jsonb_typeof(v_pair -> 0) IS DISTINCT FROM 'string' OR (v_pair ->> 0) !~ ${literal(HEADER_NAME.source)} THEN
      ${raise('header name % is not a valid HTTP header name', "left(coalesce((v_pair -> 0)::text, 'null'), 80)")}
    END IF;
    IF jsonb_typeof(v_pair -> 1) IS DISTINCT FROM 'string' OR (v_pair ->> 1) !~ ${literal(HEADER_VALUE.source)} THEN
      ${raise('header % must have a string value of tab, space, visible ASCII and U+0080 to U+00FF only (no control characters, nothing above U+00FF): the HTTP client sends no other', 'v_pair ->> 0')}
    END IF;
    ${raise(`header % cannot be sent: the HTTP client refuses ${REFUSED_HEADERS.join(', ')} (it manages the connection itself)`, 'v_pair ->> 0')}
  END IF;
  IF v_hbytes > ${PUSH_LIMITS.maxHeaderBytes} THEN
    ${raise(`headers are % bytes; a push task''s headers may have at most ${PUSH_LIMITS.maxHeaderBytes} (names and values)`, 'v_hbytes')}
  END IF;`;
}

/** The JSON value of retry_options' field `key` as numeric (only where it is a number). */
const field = (key: string) => `(retry_options ->> '${key}')::numeric`;

/**
 * retry_options: an object whose fields are numbers in their ranges, the
 * age limit above 0, the backoff bounds in order; then the task's retry
 * rules as the service stores them (TaskRetryRules in push-task.ts).
 */
function retryChecks(): string {
  const d = DEFAULT_RETRY_PARAMETERS;
  const raise = (message: string, ...values: string[]) =>
    `RAISE EXCEPTION 'retry options: task "%": ${message}', ${['v_name', ...values].join(', ')}
        USING ERRCODE = 'TQ015', DETAIL = v_name, HINT = 'INVALID_REQUEST';`;
  const checks = Object.entries(RETRY_OPTION_RULES).map(([key, rule]) => {
    // In parentheses: PL/pgSQL's IF takes its condition up to the first THEN outside them.
    const bad = `${field(key)} < 0 OR ${field(key)} > ${rule.max}${rule.integer ? ` OR ${field(key)} <> trunc(${field(key)})` : ''}`;
    return `    IF retry_options ? '${key}' AND (CASE WHEN jsonb_typeof(retry_options -> '${key}') = 'number' THEN ${bad} ELSE true END) THEN
      ${raise(`retryOptions.${key} must be ${rule.integer ? 'an integer' : 'a number'} from 0 to ${rule.max}, got %`, `retry_options -> '${key}'`)}
    END IF;`;
  });
  return `  IF retry_options IS NOT NULL THEN
    IF jsonb_typeof(retry_options) <> 'object' THEN
      ${raise('retryOptions must be an object')}
    END IF;
${checks.join('\n')}
    r_limit := ${field('taskRetryLimit')};
    r_age := ${field('taskAgeLimitSeconds')};
    r_min := ${field('minBackoffSeconds')};
    r_max := ${field('maxBackoffSeconds')};
    r_double := ${field('maxDoublings')};
    IF r_age = 0 THEN
      ${raise('retryOptions.taskAgeLimitSeconds must be more than 0')}
    END IF;
    IF r_min > r_max THEN
      ${raise('retryOptions.minBackoffSeconds (%) must not be greater than maxBackoffSeconds (%)', 'r_min', 'r_max')}
    END IF;
    -- As in the queue file: when only one bound is set, the other default gives way.
    v_retry := jsonb_build_object('retryLimit', r_limit::bigint, 'parameters', jsonb_build_object(
      'ageLimitSeconds', r_age,
      'minBackoffSeconds', coalesce(r_min, least(${d.minBackoffSeconds}, coalesce(r_max, ${d.minBackoffSeconds}))),
      'maxBackoffSeconds', coalesce(r_max, greatest(${d.maxBackoffSeconds}, coalesce(r_min, 0))),
      'maxDoublings', coalesce(r_double::bigint, ${d.maxDoublings})));
  END IF;`;
}

/**
 * Who may call add_push_task: nobody but its owner, and the schema's
 * producer role where the role exists (sql/0016 created it, or an
 * administrator did, docs/sql-api.md).
 */
export function addPushTaskGrants(): string {
  return `REVOKE ALL ON FUNCTION ${ADD_PUSH_TASK_SIGNATURE} FROM PUBLIC;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_schema() || '_producer') THEN
    EXECUTE format('GRANT EXECUTE ON FUNCTION %I.${ADD_PUSH_TASK_SIGNATURE} TO %I', current_schema(), current_schema() || '_producer');
  END IF;
END
$$;
`;
}
