import type { TaskOptions } from '../core/task.js';
import { lastErrorMessage } from '../core/last-error.js';
import { decodePayloadBase64 } from './base64-payload.js';
import { DISCOVERY_DOCUMENT } from './discovery/discovery-document.js';
import { invalidField, quote } from './http-error.js';
import { isSameQueueName } from './project-id.js';

/** Where a task body is sent: the queue and project of the path, and the task of the path for update/patch. */
export interface TaskBodyTarget {
  readonly queue: string;
  readonly project: string;
  /** The queue's mode: a push queue's insert may leave `payloadBase64` out (a bodiless request). */
  readonly mode?: 'pull' | 'push';
  readonly task?: string;
}

/**
 * How an update body is applied: `merge` for PATCH and the discovery's POST
 * update (fields left out stay as they are; the official client sends only
 * the fields it has), `replace` for PUT (an optional field left out is
 * cleared: here that means the tag).
 */
export type UpdateMode = 'merge' | 'replace';

/**
 * The fields a Task body may carry: those of the discovery's `Task` schema
 * (`retry_count`, `kind`, `enqueueTimestamp` included, so a client may send
 * back a task as it got it), and the extension `lastError` (answers carry
 * it; an update may set it: a worker reporting a failure).
 */
const TASK_FIELDS: ReadonlySet<string> = new Set([
  ...Object.keys(DISCOVERY_DOCUMENT.schemas.Task?.properties ?? {}),
  'lastError',
]);

/**
 * Refuses a field the Task schema does not have, naming it: silently
 * dropping `{"name": "t-17"}` would store the task under a generated id,
 * and the caller's later read of t-17 would be a puzzling 404.
 */
function checkKnownFields(body: Record<string, unknown>): void {
  for (const field of Object.keys(body)) {
    if (!TASK_FIELDS.has(field)) {
      throw invalidField(
        field,
        `Unknown field ${quote(field)} in a Task; its fields are ${[...TASK_FIELDS].join(', ')}`,
      );
    }
  }
}

/** What an update asks for, beyond the new lease of `newLeaseSeconds`. */
export interface TaskUpdate {
  /** The lease token the caller holds, when it sent `leaseTimestamp`. */
  readonly leaseToken: number | undefined;
  /** New tag, null to clear it, undefined to keep it. */
  readonly tag: string | null | undefined;
  /** Extension: the failure to keep as the task's last error (cut to 1000 characters); undefined keeps it. */
  readonly lastError: string | undefined;
}

/**
 * Reads an insert body (discovery `Task`): `id` (optional, generated when
 * absent or empty), `payloadBase64` (required on a pull queue), `tag`, and `leaseTimestamp`
 * as the first time the task may be leased. `queueName`, when sent, must
 * name the path's queue. `kind`, `enqueueTimestamp` and `retry_count` are
 * set by the server and ignored; any field outside the Task schema is 400.
 */
export function parseInsertBody(body: Record<string, unknown>, target: TaskBodyTarget): TaskOptions {
  checkKnownFields(body);
  checkQueueName(body, target);
  const id = optionalString(body, 'id');
  // A push task's body is optional (a GET has none), so a push queue takes
  // an insert without payloadBase64 as an empty body; a pull queue keeps
  // App Engine's 400, its tasks being their payloads.
  const payload = body.payloadBase64 ?? (target.mode === 'push' ? '' : undefined);
  if (typeof payload !== 'string') {
    throw invalidField(
      'payloadBase64',
      payload === undefined || payload === null ? 'payloadBase64 must be specified' : 'payloadBase64 must be a string',
    );
  }
  const tag = storableTag(optionalString(body, 'tag'), 'tag');
  const etaUsec = leaseTimestamp(body);
  return {
    payload: decodePayloadBase64(payload),
    ...(id ? { name: id } : {}),
    ...(tag === undefined ? {} : { tag }),
    ...(etaUsec === undefined ? {} : { etaUsec }),
    ...pushFields(body),
  };
}

/**
 * The push extension fields of an insert (`url`, `httpMethod`, `headers`,
 * `dispatchDeadlineSeconds`), checked for type; the core checks the rest
 * (the deadline's range among it, as for an in-process add).
 */
function pushFields(
  body: Record<string, unknown>,
): Pick<TaskOptions, 'url' | 'method' | 'headers' | 'dispatchDeadlineSeconds'> {
  const url = optionalString(body, 'url');
  const method = optionalString(body, 'httpMethod');
  const deadline = body.dispatchDeadlineSeconds;
  if (deadline !== undefined && deadline !== null && typeof deadline !== 'number') {
    throw invalidField(
      'dispatchDeadlineSeconds',
      'dispatchDeadlineSeconds must be a number of seconds, from 15 to 86400 (24 hours)',
    );
  }
  const headers = body.headers;
  let pairs: [string, string][] | undefined;
  if (headers !== undefined && headers !== null) {
    if (!Array.isArray(headers)) throw invalidField('headers', 'headers must be a list of {name, value} objects');
    pairs = headers.map((entry: unknown) => {
      const { name, value } = (entry ?? {}) as { name?: unknown; value?: unknown };
      if (typeof name !== 'string' || typeof value !== 'string')
        throw invalidField('headers', 'each header must be an object {name, value} of two strings');
      return [name, value];
    });
  }
  return {
    ...(typeof url === 'string' ? { url } : {}),
    ...(typeof method === 'string' ? { method: method as TaskOptions['method'] } : {}),
    ...(pairs === undefined ? {} : { headers: pairs }),
    ...(typeof deadline === 'number' ? { dispatchDeadlineSeconds: deadline } : {}),
  };
}

/**
 * Reads an update or patch body. `id` and `queueName` may be sent but must
 * name the task and queue of the path (and cannot be deleted with null);
 * `leaseTimestamp`, when sent, is the lease token; `tag` may be set, or
 * cleared with null. The payload is immutable and server-set fields are
 * ignored, so a client may send back the task exactly as it leased it; a
 * field outside the Task schema is 400.
 */
export function parseUpdateBody(body: Record<string, unknown>, target: TaskBodyTarget, mode: UpdateMode): TaskUpdate {
  checkKnownFields(body);
  checkQueueName(body, target);
  if (body.id !== undefined) {
    if (typeof body.id !== 'string')
      throw invalidField('id', body.id === null ? 'id cannot be deleted' : 'id must be a string');
    if (body.id !== target.task)
      throw invalidField('id', `id ${quote(body.id)} does not match the task of the path; a task cannot be renamed`);
  }
  const tag = storableTag(optionalString(body, 'tag'), 'tag');
  const lastError = storableTag(optionalString(body, 'lastError'), 'lastError');
  return {
    leaseToken: leaseTimestamp(body),
    tag: tag === undefined && mode === 'replace' ? null : tag,
    lastError: typeof lastError === 'string' ? lastErrorMessage(lastError) : undefined,
  };
}

/**
 * A tag PostgreSQL can store as it was sent. A NUL character makes
 * PostgreSQL refuse the text (SQLSTATE 22021, which would surface as a
 * 500), and a lone UTF-16 surrogate would be silently replaced by U+FFFD,
 * so two different tags could become one. Both are 400 here. (The length
 * limit, 500 bytes, is the core's rule.)
 */
export function storableTag<T extends string | null | undefined>(tag: T, field: string): T {
  if (typeof tag === 'string' && (tag.includes('\u0000') || LONE_SURROGATE.test(tag))) {
    throw invalidField(field, `${field} must be valid Unicode text without NUL characters`);
  }
  return tag;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function checkQueueName(body: Record<string, unknown>, target: TaskBodyTarget): void {
  const queueName = body.queueName;
  if (queueName === undefined) return;
  if (typeof queueName !== 'string') {
    throw invalidField('queueName', queueName === null ? 'queueName cannot be deleted' : 'queueName must be a string');
  }
  if (!isSameQueueName(queueName, target.queue, target.project)) {
    throw invalidField(
      'queueName',
      `queueName ${quote(queueName)} does not match the queue of the path; a task cannot move between queues`,
    );
  }
}

/** A string field: absent is undefined, null is null, anything else but a string is 400. */
function optionalString(body: Record<string, unknown>, field: string): string | null | undefined {
  const value = body[field];
  if (value === undefined || value === null || typeof value === 'string') return value;
  throw invalidField(field, `${field} must be a string`);
}

/**
 * `leaseTimestamp` in microseconds since the epoch: a decimal string (as
 * responses carry it; int64 travels as a string) or a JSON integer.
 */
function leaseTimestamp(body: Record<string, unknown>): number | undefined {
  const value = body.leaseTimestamp;
  if (value === undefined) return undefined;
  const usec =
    typeof value === 'string' && /^[0-9]{1,16}$/.test(value)
      ? Number(value)
      : typeof value === 'number'
        ? value
        : Number.NaN;
  if (!Number.isSafeInteger(usec) || usec < 0) {
    throw invalidField(
      'leaseTimestamp',
      'leaseTimestamp must be microseconds since the epoch, as a decimal string or an integer',
    );
  }
  return usec;
}
