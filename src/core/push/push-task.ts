import { CRON_FIRING, type CronFiringMark, type CronFiringOptions } from '../cron/cron-job.js';
import { QueueError } from '../errors.js';
import {
  BODY_METHODS,
  DEFAULT_PUSH_METHOD,
  DEFAULT_PUSH_URL_PREFIX,
  HEADER_NAME,
  HEADER_VALUE,
  isDroppedHeader,
  PUSH_LIMITS,
  PUSH_METHODS,
  REFUSED_HEADERS,
  RETRY_OPTION_RULES,
  URL_PATH,
  type PushMethod,
} from './push-rules.js';
import { pathClimbsOut } from './push-url.js';
import {
  DEFAULT_PUSH_SETTINGS,
  DEFAULT_RETRY_PARAMETERS,
  routeOfTarget,
  type QueueConfig,
  type RetryParameters,
  type TargetRoutes,
} from '../queue-config.js';

export { PUSH_LIMITS, PUSH_METHODS, type PushMethod } from './push-rules.js';

/** `retryOptions` of one task: replaces the queue's retry parameters as a whole (absent fields take App Engine's defaults). */
export interface TaskRetryOptions {
  readonly taskRetryLimit?: number;
  readonly taskAgeLimitSeconds?: number;
  readonly minBackoffSeconds?: number;
  readonly maxBackoffSeconds?: number;
  readonly maxDoublings?: number;
}

/** A task's own retry rules, stored with it. */
export interface TaskRetryRules {
  /** Retries allowed (attempts - 1); null = no count limit. */
  readonly retryLimit: number | null;
  readonly parameters: RetryParameters;
}

/** What a push task asks for, as stored with it (tasks.push). */
export interface PushRequest {
  /** Path and query relative to the queue's base URL; starts with `/`. */
  readonly url: string;
  readonly method: PushMethod;
  /** Header pairs in the order given (a name may repeat); `X-AppEngine-*` already dropped. */
  readonly headers: readonly (readonly [string, string])[];
  /** The task's retry rules; null = the queue's. */
  readonly retry: TaskRetryRules | null;
  /** Seconds a delivery may take; null = 10 minutes. */
  readonly deadlineSeconds: number | null;
  /** Set on a cron job's firing only (the scheduler's mark; see cron-job.ts). */
  readonly cron?: CronFiringMark;
}

/** The push fields of an add, as the caller gives them. */
export interface PushTaskOptions {
  readonly url?: string;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>> | readonly (readonly [string, string])[];
  readonly params?: Readonly<Record<string, string | readonly string[]>>;
  readonly payload?: Uint8Array | string;
  readonly retryOptions?: TaskRetryOptions;
  readonly dispatchDeadlineSeconds?: number;
  readonly tag?: string | null;
}

/** Whether an add gives any field only push tasks have (a pull queue refuses them). */
export function hasPushFields(options: PushTaskOptions): boolean {
  return (
    options.url !== undefined ||
    options.headers !== undefined ||
    options.params !== undefined ||
    options.retryOptions !== undefined ||
    options.dispatchDeadlineSeconds !== undefined ||
    (options.method !== undefined && options.method !== 'PULL')
  );
}

/**
 * Checks the push fields of one add and builds what is stored: the request
 * (url, method, headers, retry rules, deadline) and the body. Every rule
 * that needs no database is here: method, URL, params, body, headers, size,
 * retry options, deadline, and the base URL the task will go to (a cron
 * firing's: its job target's route in `routes`, else its queue's).
 */
export function validatePushTask(
  queue: QueueConfig,
  options: PushTaskOptions,
  name: string,
  where: (field: string) => Record<string, unknown>,
  routes?: TargetRoutes,
): { readonly push: PushRequest; readonly payload: Uint8Array } {
  const bad = (field: string, message: string, code: 'INVALID_REQUEST' | 'INVALID_PAYLOAD' = 'INVALID_REQUEST') =>
    new QueueError(code, `task "${name}": ${message}`, { ...where(field), task: name });
  const rawMethod = options.method ?? DEFAULT_PUSH_METHOD;
  if (rawMethod === 'PULL') {
    throw new QueueError(
      'INVALID_QUEUE_MODE',
      `queue "${queue.name}" is a push queue; a PULL task cannot be added to it`,
      where('method'),
    );
  }
  const push = queue.push ?? DEFAULT_PUSH_SETTINGS;
  const cron = (options as CronFiringOptions)[CRON_FIRING];
  // baseUrl is set (to null when there is none) where the service knows
  // TASKQUEUE_PUSH_BASE_URL (withPushBaseUrl); a tool that reads queues
  // from the database alone cannot tell, and leaves the check to the server.
  // A cron firing whose job's target has a route goes there (App Engine
  // sends a job to its target's service), whatever its queue's URL.
  if ((push.baseUrl === undefined ? (push.targetUrl ?? undefined) : push.baseUrl) === null) {
    const target = cron?.target;
    if (target === undefined || routes === undefined || routeOfTarget(target, routes) === null) {
      const unrouted =
        cron?.target === undefined
          ? ''
          : `cron job "${cron.job}": target "${cron.target}" has no route in TASKQUEUE_TARGET_URLS, and `;
      throw new QueueError(
        'INVALID_REQUEST',
        `${unrouted}push queue "${queue.name}" has nowhere to deliver: set <target-url> (target_url in queue.yaml) on the queue or TASKQUEUE_PUSH_BASE_URL`,
        where('url'),
      );
    }
  }
  const method = (rawMethod === 'PUSH' ? DEFAULT_PUSH_METHOD : rawMethod) as PushMethod;
  if (!PUSH_METHODS.includes(method)) {
    throw bad(
      'method',
      `method must be one of ${PUSH_METHODS.join(', ')} (or PULL for a pull queue), got ${JSON.stringify(rawMethod)}`,
    );
  }
  if (options.tag !== undefined && options.tag !== null)
    throw bad('tag', 'tags belong to pull tasks; a push task has none');

  let url = options.url ?? `${DEFAULT_PUSH_URL_PREFIX}${queue.name}`;
  if (typeof url !== 'string' || !URL_PATH.test(url)) {
    throw bad(
      'url',
      `url must be a path starting with "/" (printable characters, no spaces, no fragment), got ${JSON.stringify(String(url).slice(0, 80))}`,
    );
  }

  const headers = headerPairs(options.headers, bad);
  let payload = toBytes(options.payload, bad);
  if (options.params !== undefined) {
    if (options.payload !== undefined) throw bad('params', 'give payload or params, not both', 'INVALID_PAYLOAD');
    const form = formEncode(options.params, bad);
    if (BODY_METHODS.includes(method)) {
      payload = Buffer.from(form, 'utf8');
      if (!headers.some(([key]) => key.toLowerCase() === 'content-type')) {
        headers.push(['Content-Type', 'application/x-www-form-urlencoded']);
      }
    } else if (form !== '') {
      if (url.includes('?')) throw bad('params', 'params cannot be added to a url that has a query string already');
      url = `${url}?${form}`;
    }
  }
  if (!BODY_METHODS.includes(method) && payload.byteLength > 0) {
    throw bad('payload', `a ${method} task cannot have a body (only POST, PUT and PATCH can)`, 'INVALID_PAYLOAD');
  }
  if (url.length > PUSH_LIMITS.maxUrlLength)
    throw bad('url', `url is ${url.length} characters; the limit is ${PUSH_LIMITS.maxUrlLength}`);
  if (pathClimbsOut(url)) {
    throw bad(
      'url',
      `url ${JSON.stringify(url.slice(0, 80))} climbs above its root with "..": it would leave the path of the queue's target URL`,
    );
  }

  const size =
    Buffer.byteLength(url) +
    headers.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0) +
    payload.byteLength;
  if (size > PUSH_LIMITS.maxTaskBytes) {
    throw new QueueError(
      'TASK_TOO_LARGE',
      `task "${name}": url, headers and body are ${size} bytes; a push task may have at most ${PUSH_LIMITS.maxTaskBytes}`,
      { ...where('payload'), task: name, limit: PUSH_LIMITS.maxTaskBytes },
    );
  }
  const retry = options.retryOptions === undefined ? null : retryRules(options.retryOptions, bad);
  let deadlineSeconds: number | null = null;
  if (options.dispatchDeadlineSeconds !== undefined) {
    const d = options.dispatchDeadlineSeconds;
    if (
      typeof d !== 'number' ||
      !Number.isFinite(d) ||
      d < PUSH_LIMITS.minDeadlineSeconds ||
      d > PUSH_LIMITS.maxDeadlineSeconds
    ) {
      throw bad(
        'dispatchDeadlineSeconds',
        `dispatchDeadlineSeconds must be from ${PUSH_LIMITS.minDeadlineSeconds} to ${PUSH_LIMITS.maxDeadlineSeconds} (24 hours), got ${String(d)}`,
      );
    }
    deadlineSeconds = d;
  }
  return { push: { url, method, headers, retry, deadlineSeconds, ...(cron === undefined ? {} : { cron }) }, payload };
}

/**
 * Header pairs, minus those the service sets itself (DROPPED_HEADERS,
 * push-rules.ts). The count is checked before a pair is read and each pair
 * costs the same, so a hostile list costs no more than the limit's.
 */
function headerPairs(
  headers: PushTaskOptions['headers'],
  bad: (field: string, message: string) => QueueError,
): [string, string][] {
  if (headers === undefined) return [];
  if (typeof headers !== 'object' || headers === null) {
    throw bad('headers', 'headers must be an object of names to values, or a list of [name, value] pairs');
  }
  const pairs: readonly (readonly [unknown, unknown])[] = Array.isArray(headers)
    ? (headers as readonly (readonly [unknown, unknown])[])
    : Object.entries(headers);
  if (pairs.length > PUSH_LIMITS.maxHeaders) {
    throw bad('headers', `${pairs.length} headers; a push task may have at most ${PUSH_LIMITS.maxHeaders}`);
  }
  const out: [string, string][] = [];
  let bytes = 0;
  for (const pair of pairs) {
    const [key, value] = Array.isArray(pair) ? pair : [undefined, undefined];
    if (typeof key !== 'string' || !HEADER_NAME.test(key))
      throw bad('headers', `header name ${JSON.stringify(key)} is not a valid HTTP header name`);
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      throw bad(
        'headers',
        `header ${key} must have a string value of tab, space, visible ASCII and U+0080 to U+00FF only (no control characters, nothing above U+00FF): the HTTP client sends no other`,
      );
    }
    const lower = key.toLowerCase();
    if ((REFUSED_HEADERS as readonly string[]).includes(lower)) {
      throw bad(
        'headers',
        `header ${key} cannot be sent: the HTTP client refuses ${REFUSED_HEADERS.join(', ')} (it manages the connection itself)`,
      );
    }
    bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
    if (isDroppedHeader(lower)) continue;
    out.push([key, value]);
  }
  if (bytes > PUSH_LIMITS.maxHeaderBytes) {
    throw bad(
      'headers',
      `headers are ${bytes} bytes; a push task's headers may have at most ${PUSH_LIMITS.maxHeaderBytes} (names and values)`,
    );
  }
  return out;
}

function formEncode(
  params: NonNullable<PushTaskOptions['params']>,
  bad: (field: string, message: string) => QueueError,
): string {
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw bad('params', 'params must be an object of names to values');
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    const values: readonly unknown[] = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v !== 'string') throw bad('params', `param ${key} must be a string or a list of strings`);
      form.append(key, v);
    }
  }
  return form.toString();
}

function toBytes(
  payload: PushTaskOptions['payload'],
  bad: (field: string, message: string, code: 'INVALID_PAYLOAD') => QueueError,
): Uint8Array {
  if (payload === undefined) return new Uint8Array(0);
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (payload instanceof Uint8Array) return payload;
  throw bad('payload', 'payload must be a string or a Uint8Array/Buffer', 'INVALID_PAYLOAD');
}

function retryRules(options: TaskRetryOptions, bad: (field: string, message: string) => QueueError): TaskRetryRules {
  if (typeof options !== 'object' || options === null) throw bad('retryOptions', 'retryOptions must be an object');
  const num = (key: keyof TaskRetryOptions): number | undefined => {
    const { integer, max } = RETRY_OPTION_RULES[key];
    const v = options[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > max || (integer && !Number.isInteger(v))) {
      throw bad(
        'retryOptions',
        `retryOptions.${key} must be ${integer ? 'an integer' : 'a number'} from 0 to ${max}, got ${String(v)}`,
      );
    }
    return v;
  };
  const retryLimit = num('taskRetryLimit') ?? null;
  const age = num('taskAgeLimitSeconds');
  const min = num('minBackoffSeconds');
  const max = num('maxBackoffSeconds');
  const doublings = num('maxDoublings');
  if (age === 0) throw bad('retryOptions', 'retryOptions.taskAgeLimitSeconds must be more than 0');
  if (min !== undefined && max !== undefined && min > max) {
    throw bad(
      'retryOptions',
      `retryOptions.minBackoffSeconds (${min}) must not be greater than maxBackoffSeconds (${max})`,
    );
  }
  const d = DEFAULT_RETRY_PARAMETERS;
  return {
    retryLimit,
    parameters: {
      ageLimitSeconds: age ?? null,
      // As in the queue file: when only one bound is set, the other default gives way.
      minBackoffSeconds: min ?? Math.min(d.minBackoffSeconds, max ?? Infinity),
      maxBackoffSeconds: max ?? Math.max(d.maxBackoffSeconds, min ?? 0),
      maxDoublings: doublings ?? d.maxDoublings,
    },
  };
}
