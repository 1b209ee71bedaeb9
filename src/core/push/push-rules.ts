/**
 * The rules of a push task's request that hold whichever way it is added:
 * the in-process API and REST check them in push-task.ts, and the SQL API's
 * add_push_task is generated from these same values
 * (src/store/sql-api/sql-api-push-function.ts), so each has one definition.
 * Patterns are written for both engines: JavaScript's and PostgreSQL's
 * regular expressions read them alike (ASCII classes, `\x` escapes).
 */

/** HTTP methods a push task may use (App Engine's five, plus PATCH as in Cloud Tasks). */
export const PUSH_METHODS = ['POST', 'GET', 'PUT', 'DELETE', 'HEAD', 'PATCH'] as const;
export type PushMethod = (typeof PUSH_METHODS)[number];

/** Methods that carry a body; the others refuse a payload. */
export const BODY_METHODS: readonly PushMethod[] = ['POST', 'PUT', 'PATCH'];

/** The method of a push task added without one. */
export const DEFAULT_PUSH_METHOD: PushMethod = 'POST';

/**
 * App Engine's limits (taskqueue.py `MAX_PUSH_TASK_SIZE_BYTES`,
 * `MAX_URL_LENGTH`, `MIN/MAX_DISPATCH_DEADLINE`), and the headers' bounds.
 * Cloud Tasks documents the headers' size ("must be less than 80KB",
 * HttpRequest.headers); neither documents a count, which is ours: it bounds
 * the work of one add before a header is read (8,000 pairs once took add_push_task
 * 21.6 s), and 100 is far above what a task sends (a content type, a
 * credential, App Engine's FailFast and namespace pair).
 */
export const PUSH_LIMITS = {
  maxTaskBytes: 100 * 1024,
  maxUrlLength: 2083,
  minDeadlineSeconds: 15,
  maxDeadlineSeconds: 24 * 3600,
  defaultDeadlineSeconds: 600,
  /** Header pairs given to one add, dropped ones included. */
  maxHeaders: 100,
  /** UTF-8 bytes of the names and values given to one add, dropped ones included. */
  maxHeaderBytes: 80 * 1024,
} as const;

/** RFC 9110 token: a header name. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * A header value the HTTP client (undici, util.js `headerCharRegex`) sends:
 * tab, space, visible ASCII and U+0080 to U+00FF (sent as one byte each).
 * No control character, no DEL, nothing above U+00FF: undici refuses those
 * on every attempt.
 */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/**
 * Header names (lower case) the HTTP client refuses to send (undici,
 * request.js `processHeader`: it manages the connection itself), so a task
 * carrying one could never be delivered: refused at add. Its other refusals,
 * `transfer-encoding` and a bad `connection`, are among DROPPED_HEADERS.
 */
export const REFUSED_HEADERS = ['expect', 'upgrade', 'keep-alive'] as const;

/**
 * A dot segment of a URL path as the URL parser reads it (WHATWG URL:
 * `.` and `..`, either dot percent-encoded, in any case), and the path's
 * separators (`\` is `/` in an http URL). A task's path may not climb
 * above its root with them (push-url.ts `pathClimbsOut`): joined to the
 * queue's base URL it would leave the base's path.
 */
export const DOUBLE_DOT_SEGMENT = /^(\.|%2[eE])(\.|%2[eE])$/;
export const SINGLE_DOT_SEGMENT = /^(\.|%2[eE])$/;
export const PATH_SEPARATOR = /[/\\]/;
/** Whether a URL may hold a double-dot segment at all (the cheap test before the walk). */
export const MAYBE_DOUBLE_DOT = /(\.|%2[eE])(\.|%2[eE])/;
/** A path and query: printable, no spaces, no fragment. */
export const URL_PATH = /^\/[\x21-\x22\x24-\x7e]*$/;

/** The URL of a push task added without one: App Engine's `/_ah/queue/<queue name>`. */
export const DEFAULT_PUSH_URL_PREFIX = '/_ah/queue/';

/**
 * Headers the service sets itself, dropped from a task's (compared in lower
 * case): `X-AppEngine-*` (App Engine dropped a caller's; handlers trust
 * them) except `X-AppEngine-FailFast` and `X-AppEngine-Current-Namespace`
 * (App Engine kept both: the SDK sets the namespace on push tasks, and
 * `deferred` handlers restore it from there), `X-CloudTasks-*` (their mirror),
 * `X-CloudScheduler*` (they mark a cron firing's delivery: a producer must
 * not forge one), and those computed from the body or set by the connection.
 */
export const DROPPED_HEADERS = {
  prefixes: ['x-cloudtasks-', 'x-appengine-', 'x-cloudscheduler'],
  kept: ['x-appengine-failfast', 'x-appengine-current-namespace'],
  names: ['content-length', 'host', 'transfer-encoding', 'connection'],
} as const;

/** Whether a header (its name in lower case) is dropped from a task. */
export function isDroppedHeader(lower: string): boolean {
  if ((DROPPED_HEADERS.kept as readonly string[]).includes(lower)) return false;
  return (
    DROPPED_HEADERS.prefixes.some((prefix) => lower.startsWith(prefix)) ||
    (DROPPED_HEADERS.names as readonly string[]).includes(lower)
  );
}

/**
 * A task's `retryOptions`: each field's range (the numbers of App Engine's
 * TaskRetryOptions). Absent fields take the defaults of
 * DEFAULT_RETRY_PARAMETERS, except that when only one backoff bound is
 * given the other default gives way to it (as in the queue file).
 */
export const RETRY_OPTION_RULES = {
  taskRetryLimit: { integer: true, max: 2_147_483_647 },
  taskAgeLimitSeconds: { integer: false, max: 1e12 },
  minBackoffSeconds: { integer: false, max: 1e12 },
  maxBackoffSeconds: { integer: false, max: 1e12 },
  maxDoublings: { integer: true, max: 63 },
} as const;
