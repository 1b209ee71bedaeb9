import type { QueueOperations } from '../../core/queue-operations.js';
import type { ResponseShape } from '../fields/check-fields.js';
import type { RestCall } from '../rest-handler.js';

/**
 * The operator API of the call's queue, acting as the caller (their
 * verified e-mail, or `anonymous` with access control off; source `rest`):
 * the core records each action in the audit log.
 */
export function operationsOf(call: RestCall): QueueOperations {
  return call.deps.service.operate(call.queue.name, {
    actor: call.decision.principal?.email ?? 'anonymous',
    source: 'rest',
  });
}

const VALUE: ResponseShape = { type: 'value' };

/** The shape of a flat JSON object with these keys, for checking `fields`. */
export function flatShape(...keys: readonly string[]): ResponseShape {
  return { type: 'object', properties: Object.fromEntries(keys.map((key) => [key, VALUE])) };
}

/** A response `fields` cannot select in (JSON lines): any selection is refused. */
export const NO_FIELDS: ResponseShape = { type: 'object', properties: {} };

/** `taskqueues#queueOverview`: core/queue-overview.ts. */
export const QUEUE_OVERVIEW_SHAPE: ResponseShape = flatShape(
  'name',
  'mode',
  'paused',
  'availableTasks',
  'leasedTasks',
  'delayedTasks',
  'oldestAvailableAgeSeconds',
  'leasedLastMinute',
  'leasedLastHour',
  'deadLetters',
  'storageBytes',
  'storageLimitBytes',
  'retryLimit',
  'leaseRate',
  // Pull leases with more than 15 minutes still to run (core/queue-overview.ts).
  'longLeases',
  // Push queues: rate, bucket, concurrency, target, in flight, tokens now, hold and slow-down.
  'push',
);
