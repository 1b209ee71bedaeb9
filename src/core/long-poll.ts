import { abortableSleep } from './abortable-sleep.js';
import type { Clock } from './clock.js';
import type { LeaseResult, TaskLeaseParams, TaskStore } from './task-store.js';

/**
 * Longest single wait between two lease attempts of a long-poll: a change
 * no notification announces (an expired lease, a resumed queue) is seen
 * within this time.
 */
export const WAIT_SLICE_MS = 1000;

/**
 * Shortest time between two lease attempts of one long-poll, so that a
 * burst of notifications (or a wake-up whose task another consumer took
 * first) cannot turn the loop into a busy poll of the database.
 */
export const MIN_ATTEMPT_INTERVAL_MS = 20;

/** What ends a wait: a signal, or a function that gives one, called only when the lease does wait. */
export type LeaseSignal = AbortSignal | (() => AbortSignal | undefined);

/**
 * A lease that, when nothing is leasable, waits up to `waitMs` for tasks.
 * Every attempt is an ordinary lease (`leaseOnce`), so the queue's lease
 * rate applies to each one; on a rate-limited queue a waiting call attempts
 * again only when a probe finds a task to take. Between attempts the caller
 * holds no database connection: the store's `waitForTasks` resolves when it
 * hears that tasks may have arrived (LISTEN/NOTIFY on one shared
 * connection, and adds of this process at once), and at the latest after
 * WAIT_SLICE_MS, so a missed notification costs at most that. It stops
 * when tasks come back, when the time is up (by `now`), or when `signal`
 * aborts. A paused queue counts as empty: the wait goes on, and a resume is
 * seen at the next attempt.
 */
export async function leaseWithWait(
  store: TaskStore,
  leaseOnce: (params: TaskLeaseParams) => Promise<LeaseResult>,
  params: TaskLeaseParams,
  options: { readonly waitMs: number; readonly signal: LeaseSignal | undefined; readonly now: Clock },
): Promise<LeaseResult> {
  const { now } = options;
  const ref = { queueId: params.queueId, queueName: params.queueName };
  const deadline = now() + options.waitMs;
  let result = await leaseOnce(params);
  // Taken only once the lease has to wait: most long-polls of a busy queue
  // get tasks at the first attempt, and a signal can cost to build (over
  // REST, an AbortController per request and one combined with shutdown).
  let signal: AbortSignal | undefined;
  let signalTaken = false;
  for (;;) {
    const remaining = deadline - now();
    if (result.tasks.length > 0 || remaining <= 0) return result;
    if (!signalTaken) {
      signalTaken = true;
      signal = typeof options.signal === 'function' ? options.signal() : options.signal;
    }
    if (signal?.aborted) return { ...result, paused: false };
    const waitStart = now();
    await store.waitForTasks({ ...ref, timeoutMs: Math.min(remaining, WAIT_SLICE_MS), ...(signal ? { signal } : {}) });
    const waited = now() - waitStart;
    if (waited < MIN_ATTEMPT_INTERVAL_MS) await abortableSleep(MIN_ATTEMPT_INTERVAL_MS - waited, signal);
    if (signal?.aborted) return { ...result, paused: false };
    // On a rate-limited queue every attempt counts against the lease rate
    // (10 calls a second by default): ten idle long-polls re-trying once a
    // second would use it all and leave consumers with work nothing. So a
    // waiting call tries again only when a task is there to take; the
    // probe counts no call.
    if (params.leaseRate !== null && !(await store.hasLeasableTasks({ ...ref, filter: params.filter }))) continue;
    result = await leaseOnce(params);
  }
}
