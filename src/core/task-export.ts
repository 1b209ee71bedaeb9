import { QueueError } from './errors.js';
import { PUSH_METHODS, type PushMethod, type PushRequest, type TaskRetryOptions } from './push/push-task.js';
import { TASK_NAME_PATTERN, type Task, type TaskOptions } from './task.js';

/**
 * One line of an export (`taskqueue export`, `GET .../tasks/export`): what
 * an add can restore of a task (name, ETA, tag, payload, and a push task's
 * request). Retry counts and enqueue times start afresh on import. The keys
 * are always in this order, so the same tasks export to the same bytes.
 */
export interface ExportLine {
  readonly name: string;
  /** When the task becomes leasable (for a leased task: its lease expiry), microseconds since the epoch. */
  readonly etaUsec: number;
  readonly tag: string | null;
  /** The payload in standard, padded base64 (a push task's body). */
  readonly payloadBase64: string;
  /**
   * A push task's request; absent on pull tasks. Exports written before it
   * existed have none: their push tasks import as default POSTs to
   * `/_ah/queue/<queue>`, which is all those exports kept.
   */
  readonly push?: ExportedPushRequest;
}

/**
 * A push task's request in an export, in the words of an add: importing it
 * gives the task the same url, method, headers, retry rules and deadline.
 */
export interface ExportedPushRequest {
  /** Path and query, relative to the queue's base URL. */
  readonly url: string;
  readonly method: PushMethod;
  /** Header pairs in order (a name may repeat). */
  readonly headers: readonly (readonly [string, string])[];
  /** The task's own retry rules, every field written out; null = the queue's. */
  readonly retryOptions: TaskRetryOptions | null;
  /** Seconds a delivery may take; null = the default (10 minutes). */
  readonly dispatchDeadlineSeconds: number | null;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const KEYS = ['name', 'etaUsec', 'tag', 'payloadBase64', 'push'];
const PUSH_KEYS = ['url', 'method', 'headers', 'retryOptions', 'dispatchDeadlineSeconds'];
const RETRY_KEYS = ['taskRetryLimit', 'taskAgeLimitSeconds', 'minBackoffSeconds', 'maxBackoffSeconds', 'maxDoublings'];

/** A task as an export line. */
export function toExportLine(task: Task): ExportLine {
  const line = {
    name: task.name,
    etaUsec: task.etaUsec,
    tag: task.tag,
    payloadBase64: task.payload.toString('base64'),
  };
  return task.push ? { ...line, push: exportedPush(task.push) } : line;
}

function exportedPush(push: PushRequest): ExportedPushRequest {
  const retry = push.retry;
  return {
    url: push.url,
    method: push.method,
    headers: push.headers.map(([key, value]) => [key, value] as const),
    // All five fields, so the import gives these rules and not App Engine's defaults for the missing ones.
    retryOptions: retry && {
      ...(retry.retryLimit === null ? {} : { taskRetryLimit: retry.retryLimit }),
      ...(retry.parameters.ageLimitSeconds === null ? {} : { taskAgeLimitSeconds: retry.parameters.ageLimitSeconds }),
      minBackoffSeconds: retry.parameters.minBackoffSeconds,
      maxBackoffSeconds: retry.parameters.maxBackoffSeconds,
      maxDoublings: retry.parameters.maxDoublings,
    },
    dispatchDeadlineSeconds: push.deadlineSeconds,
  };
}

/** An export line as the task to add (the add checks a push request again, as any other). */
export function importedTask(line: ExportLine): TaskOptions {
  const task = {
    name: line.name,
    etaUsec: line.etaUsec,
    tag: line.tag,
    payload: Buffer.from(line.payloadBase64, 'base64'),
  };
  const push = line.push;
  if (!push) return task;
  return {
    ...task,
    url: push.url,
    method: push.method,
    headers: push.headers,
    ...(push.retryOptions ? { retryOptions: push.retryOptions } : {}),
    ...(push.dispatchDeadlineSeconds === null ? {} : { dispatchDeadlineSeconds: push.dispatchDeadlineSeconds }),
  };
}

/**
 * Checks one parsed line of an export and returns it with its keys in the
 * export's order; anything else is INVALID_REQUEST naming the line, so a
 * batch with a bad line adds nothing. Lines without `push` (pull tasks,
 * and every line of an older export) are read as before.
 */
export function parseExportLine(value: unknown, line: number): ExportLine {
  const fail = (why: string): never => {
    throw new QueueError('INVALID_REQUEST', `line ${line}: ${why}`, { line });
  };
  const record = objectOf(value, KEYS, 'a JSON object', fail);
  const { name, etaUsec, tag, payloadBase64 } = record;
  if (typeof name !== 'string' || !TASK_NAME_PATTERN.test(name))
    fail('name must be a task name (letters, digits, _ and -; 1 to 500)');
  if (typeof etaUsec !== 'number' || !Number.isSafeInteger(etaUsec) || etaUsec < 0)
    fail('etaUsec must be microseconds since the epoch');
  if (tag !== undefined && tag !== null && typeof tag !== 'string') fail('tag must be a string or null');
  if (typeof payloadBase64 !== 'string' || !BASE64.test(payloadBase64) || payloadBase64.length % 4 !== 0) {
    fail('payloadBase64 must be standard, padded base64');
  }
  const parsed = {
    name: name as string,
    etaUsec: etaUsec as number,
    tag: (tag as string | null | undefined) ?? null,
    payloadBase64: payloadBase64 as string,
  };
  return record.push === undefined ? parsed : { ...parsed, push: parsePush(record.push, fail) };
}

/**
 * The push request of a line, its shape checked (the add checks the values:
 * url form, header names, ranges, as for any push task).
 */
function parsePush(value: unknown, fail: (why: string) => never): ExportedPushRequest {
  const push = objectOf(value, PUSH_KEYS, 'push to be an object', fail, 'push.');
  const { url, method, headers, retryOptions, dispatchDeadlineSeconds } = push;
  if (typeof url !== 'string') fail('push.url must be a string');
  if (typeof method !== 'string' || !(PUSH_METHODS as readonly string[]).includes(method))
    fail(`push.method must be one of ${PUSH_METHODS.join(', ')}`);
  const pairs = headers ?? [];
  if (
    !Array.isArray(pairs) ||
    !pairs.every((pair) => Array.isArray(pair) && pair.length === 2 && pair.every((part) => typeof part === 'string'))
  ) {
    fail('push.headers must be a list of [name, value] pairs of strings');
  }
  let retry: TaskRetryOptions | null = null;
  if (retryOptions !== undefined && retryOptions !== null) {
    const options = objectOf(retryOptions, RETRY_KEYS, 'push.retryOptions to be an object', fail, 'push.retryOptions.');
    for (const [key, v] of Object.entries(options))
      if (typeof v !== 'number') fail(`push.retryOptions.${key} must be a number`);
    retry = options as TaskRetryOptions;
  }
  const deadline = dispatchDeadlineSeconds ?? null;
  if (deadline !== null && typeof deadline !== 'number') fail('push.dispatchDeadlineSeconds must be a number or null');
  return {
    url: url as string,
    method: method as PushMethod,
    headers: (pairs as [string, string][]).map(([key, v]) => [key, v] as const),
    retryOptions: retry,
    dispatchDeadlineSeconds: deadline as number | null,
  };
}

/** `value` as a plain object with no key outside `keys`. */
function objectOf(
  value: unknown,
  keys: readonly string[],
  expected: string,
  fail: (why: string) => never,
  prefix = '',
): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(`expected ${expected}`);
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!keys.includes(key)) fail(`unknown field "${prefix}${key.slice(0, 40)}" (expected ${keys.join(', ')})`);
  }
  return record;
}
