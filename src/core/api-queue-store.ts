import type { AuditIntent } from './audit-log.js';
import type { QueueConfig } from './queue-config.js';

/** An API-made queue as the database keeps it: its definition and its row id. */
export interface ApiQueueRow {
  readonly id: number;
  readonly config: QueueConfig;
}

/**
 * The storage of queues made through the Cloud Tasks API (sql/0021): rows
 * of the `queues` table whose source is `api`. Every change runs in one
 * transaction with its audit entry and moves the version the other
 * processes watch. `store/definitions/api-queues.ts` implements it.
 */
export interface ApiQueueStore {
  /** Moves with every create, update and delete of an API-made queue, in commit order. */
  apiQueuesVersion(): Promise<number>;
  /** Every live API-made queue, by name. */
  listApiQueues(): Promise<ApiQueueRow[]>;
  /**
   * Makes the queue: QUEUE_ALREADY_EXISTS when a live queue (either
   * source) has the name, QUEUE_NAME_HELD when an API-made queue of that
   * name was deleted less than `holdMs` ago. A retired file queue's row or
   * a deleted API queue's past its hold is taken over (same id).
   */
  createApiQueue(params: {
    readonly config: QueueConfig;
    readonly holdMs: number;
    readonly audit: AuditIntent;
  }): Promise<ApiQueueRow>;
  /** Replaces a live API-made queue's definition: UNKNOWN_QUEUE when none has the name, QUEUE_OWNED_ELSEWHERE for a file queue. */
  updateApiQueue(params: { readonly config: QueueConfig; readonly audit: AuditIntent }): Promise<ApiQueueRow>;
  /**
   * Marks a live API-made queue deleted (its name held from now), with
   * errors as updateApiQueue's; returns its row id, whose tasks the caller
   * then purges.
   */
  deleteApiQueue(params: { readonly name: string; readonly audit: AuditIntent }): Promise<number>;
}
