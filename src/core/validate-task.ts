import { QueueError } from './errors.js';
import { LIMITS } from './limits.js';
import type { QueueConfig, TargetRoutes } from './queue-config.js';
import { TASK_NAME_PATTERN, generateTaskName, type TaskOptions } from './task.js';
import type { NewTask } from './task-store.js';
import { validateTag } from './validate-tag.js';
import { hasPushFields, validatePushTask } from './push/push-task.js';
import { CRON_FIRING, isCronTaskName, RESERVED_CRON_NAME_REASON, type CronFiringOptions } from './cron/cron-job.js';
import { checkKnownTaskFields } from './known-task-fields.js';

/**
 * Checks one task a producer wants to add and turns it into the store's
 * shape. Every rule of spec section 8 that can be checked without the
 * database is checked here, so a bad task never costs a round trip.
 * `routes` (TASKQUEUE_TARGET_URLS) say whether a cron firing's target has
 * somewhere to go; absent where the process does not know them.
 */
export function validateNewTask(
  queue: QueueConfig,
  options: TaskOptions,
  index: number,
  routes?: TargetRoutes,
): NewTask {
  // Error details are built only when a rule fails, and no closure is made
  // per task on the way through: this runs once per task of every add, and
  // those allocations were most of its cost.
  checkKnownTaskFields(options, queue.name, index);
  const method = options.method ?? (queue.mode === 'push' ? 'POST' : 'PULL');
  if (queue.mode === 'pull' && (method !== 'PULL' || hasPushFields(options))) {
    throw new QueueError(
      'INVALID_QUEUE_MODE',
      `queue "${queue.name}" is a pull queue: its tasks have method PULL and no url, headers, params, retryOptions or dispatchDeadlineSeconds`,
      fieldOf(queue, index, 'method'),
    );
  }

  // A generated name matches the pattern by construction (24 base64url
  // characters); only a name the caller gives is tested.
  const given: unknown = options.name;
  if (given !== undefined && given !== null && (typeof given !== 'string' || !TASK_NAME_PATTERN.test(given))) {
    throw new QueueError(
      'INVALID_TASK_NAME',
      `task name must match ${TASK_NAME_PATTERN.source} (letters, digits, _ and -; 1 to 500), got ${JSON.stringify(String(given).slice(0, 60))}`,
      fieldOf(queue, index, 'name'),
    );
  }
  const named = typeof given === 'string';
  // Only the cron scheduler's add carries the mark (a symbol no REST, CLI or
  // JSON caller can send); anyone else naming a task so would pre-empt a firing.
  if (named && isCronTaskName(given) && (options as CronFiringOptions)[CRON_FIRING] === undefined) {
    throw new QueueError(
      'INVALID_TASK_NAME',
      `task name "${given}" ${RESERVED_CRON_NAME_REASON}`,
      fieldOf(queue, index, 'name'),
    );
  }
  const name = named ? given : generateTaskName();

  if (queue.mode === 'push') {
    const where = (field: string) => fieldOf(queue, index, field);
    const { push, payload } = validatePushTask(queue, options, name, where, routes);
    return { name, named, payload, tag: null, ...taskTiming(options, where), push };
  }
  const payload = toPayload(options.payload, queue, index);
  if (payload.byteLength > LIMITS.maxTaskBytes) {
    throw new QueueError(
      'TASK_TOO_LARGE',
      `task "${name}": payload is ${payload.byteLength} bytes; the limit is ${LIMITS.maxTaskBytes}`,
      { ...fieldOf(queue, index, 'payload'), task: name, limit: LIMITS.maxTaskBytes },
    );
  }

  const rawTag = options.tag;
  const tag =
    rawTag === undefined || rawTag === null || rawTag === '' ? null : validateTag(rawTag, fieldOf(queue, index, 'tag'));
  if (options.countdownSeconds === undefined && options.eta === undefined && options.etaUsec === undefined) {
    return { name, named, payload, tag, etaUsec: null, delayMs: 0 };
  }
  const { etaUsec, delayMs } = taskTiming(options, (field) => fieldOf(queue, index, field));
  return { name, named, payload, tag, etaUsec, delayMs };
}

/** Error details: the queue, the field at fault and the task's place in the add. */
function fieldOf(queue: QueueConfig, index: number, field: string): Record<string, unknown> {
  return { queue: queue.name, field, index };
}

/** The ETA of a new task: none (now), a countdown, or an absolute time (at most one of them). */
function taskTiming(
  options: TaskOptions,
  where: (field: string) => Record<string, unknown>,
): { etaUsec: number | null; delayMs: number } {
  const timing =
    (options.countdownSeconds !== undefined ? 1 : 0) +
    (options.eta !== undefined ? 1 : 0) +
    (options.etaUsec !== undefined ? 1 : 0);
  if (timing > 1) {
    throw new QueueError('INVALID_ETA', 'give at most one of countdownSeconds, eta and etaUsec', where('eta'));
  }
  let etaUsec: number | null = null;
  let delayMs = 0;
  if (options.countdownSeconds !== undefined) {
    const seconds = options.countdownSeconds;
    if (
      typeof seconds !== 'number' ||
      !Number.isFinite(seconds) ||
      seconds < 0 ||
      seconds * 1000 > LIMITS.maxEtaAheadMs
    ) {
      throw new QueueError(
        'INVALID_ETA',
        `countdownSeconds must be between 0 and 30 days (2592000), got ${String(seconds)}`,
        where('countdownSeconds'),
      );
    }
    delayMs = seconds * 1000;
  } else if (options.eta !== undefined) {
    const ms = options.eta instanceof Date ? options.eta.getTime() : Number.NaN;
    if (!Number.isFinite(ms) || ms < 0)
      throw new QueueError('INVALID_ETA', 'eta must be a valid Date after 1970', where('eta'));
    etaUsec = ms * 1000;
  } else if (options.etaUsec !== undefined) {
    const usec = options.etaUsec;
    if (!Number.isSafeInteger(usec) || usec < 0) {
      throw new QueueError(
        'INVALID_ETA',
        `etaUsec must be a non-negative integer (microseconds since the epoch), got ${String(usec)}`,
        where('etaUsec'),
      );
    }
    etaUsec = usec;
  }
  return { etaUsec, delayMs };
}

function toPayload(payload: TaskOptions['payload'], queue: QueueConfig, index: number): Uint8Array {
  if (payload === undefined) return new Uint8Array(0);
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (payload instanceof Uint8Array) return payload;
  throw new QueueError(
    'INVALID_PAYLOAD',
    'payload must be a string or a Uint8Array/Buffer',
    fieldOf(queue, index, 'payload'),
  );
}
