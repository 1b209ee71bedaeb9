import { QueueError } from './errors.js';
import { lastErrorMessage } from './last-error.js';
import type { RetryParameters } from './queue-config.js';
import { retryBackoffSeconds } from './retry-backoff.js';

/**
 * How a failed task is handed back: its lease set to the queue's backoff
 * delay for the retry it is about to get (its retry count: the first
 * lease's failure is retry 1), and the error's message kept as its last
 * error. The task returns when that lease ends, counting a lease as any
 * lapsed lease does, so the queue's retry limit applies unchanged.
 */
export function failureLease(
  retryCount: number,
  retry: RetryParameters,
  error: unknown,
  queue: string,
): { readonly leaseMs: number; readonly lastError: string } {
  if (!Number.isSafeInteger(retryCount) || retryCount < 1) {
    throw new QueueError('INVALID_REQUEST', 'failTask takes a leased task (its retryCount is at least 1)', {
      queue,
      field: 'retryCount',
    });
  }
  return { leaseMs: Math.round(retryBackoffSeconds(retryCount, retry) * 1000), lastError: lastErrorMessage(error) };
}
