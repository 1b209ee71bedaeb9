import type { PushRequest } from '../core/push/push-task.js';
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
  /** Push tasks (read by get and list only). */
  push?: PushRequest | string | null;
  execution_count?: number;
  last_status?: number | null;
  /** A worker's or a push delivery's last failure (sql/0012); selected by the queries that hand tasks out. */
  last_error?: string | null;
  in_flight?: boolean;
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
    ...(row.push ? { push: typeof row.push === 'string' ? (JSON.parse(row.push) as PushRequest) : row.push } : {}),
    ...(row.push && row.execution_count !== undefined
      ? {
          delivery: {
            executionCount: row.execution_count,
            lastStatus: row.last_status ?? null,
            lastError: row.last_error ?? null,
            inFlight: row.in_flight === true,
          },
        }
      : {}),
  };
}
