import type { Task } from '../core/task.js';
import { toBuffer, toNumber } from './store-context.js';

/** The columns task-returning queries select, with times as integer microseconds. */
export interface TaskRow {
  name: string;
  tag: string | null;
  payload?: Uint8Array | null;
  retry_count: number;
  eta_usec: unknown;
  enqueued_usec: unknown;
  /** Selected by the queries that hand tasks to consumers and operators. */
  last_error?: string | null;
}

/** Builds the domain's Task from a row. */
export function taskFromRow(queueName: string, row: TaskRow): Task {
  return {
    name: row.name,
    queueName,
    payload: toBuffer(row.payload),
    tag: row.tag,
    retryCount: row.retry_count,
    etaUsec: toNumber(row.eta_usec),
    enqueuedUsec: toNumber(row.enqueued_usec),
    ...(row.last_error === undefined ? {} : { lastError: row.last_error }),
  };
}
