import type { Operator } from '../core/audit-log.js';
import type { QueueConfig } from '../core/queue-config.js';
import type { QueueOperations } from '../core/queue-operations.js';
import type { QueueOverview } from '../core/queue-overview.js';
import type { TaskQueue } from '../core/task-queue.js';

/** What the App Engine API needs of the service: the in-process API and the operator API. */
export interface TaskQueueHost {
  getQueue(name: string): TaskQueue;
  queues(): QueueConfig[];
  operate(name: string, operator: Operator): QueueOperations;
  overview(names?: readonly string[]): Promise<QueueOverview[]>;
}

/**
 * Who acts over the App Engine API: the SDK sends no credentials, so the
 * caller is the hosting application, as in-process callers are. Operator
 * actions (purge, pause) are audited under this source.
 */
export const APP_ENGINE_OPERATOR: Operator = { actor: 'anonymous', source: 'appengine' };
