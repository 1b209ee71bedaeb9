import { isQueueError } from '../core/errors.js';
import type { LeaseOptions, TaskQueue } from '../core/task-queue.js';
import type { Task } from '../core/task.js';

/** Longest `waitSecs` a lease may ask for. */
export const MAX_WAIT_SECONDS = 60;

/** Longest single wait between two lease attempts. */
const WAIT_SLICE_MS = 1000;

/**
 * Shortest time between two lease attempts of one request, so that a burst
 * of notifications (or a wait that returns at once) cannot turn the loop
 * into a busy poll of the database.
 */
const MIN_ATTEMPT_INTERVAL_MS = 20;

/**
 * A lease that, when nothing is leasable, waits up to `waitMs` for tasks
 * instead of returning at once (an extension: `waitSecs` on tasks.lease).
 * Every attempt is an ordinary lease, so the queue's lease rate still
 * applies to each one. Between attempts the request holds no database
 * connection: `waitForTasks` resolves when the store hears that tasks may
 * have arrived (LISTEN/NOTIFY on one shared connection), and at the latest
 * after a second, so a missed notification costs at most that. It stops
 * when tasks come back, when the deadline passes, or when `signal` aborts
 * (the client went away). A paused queue counts as empty: the wait goes on,
 * and a resume is seen at the next once-a-second attempt.
 */
export async function leaseWithWait(queue: TaskQueue, options: LeaseOptions, waitMs: number, signal: AbortSignal | undefined): Promise<Task[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const tasks = await queue.leaseTasks(options).catch((error: unknown) => {
      if (isQueueError(error, 'QUEUE_PAUSED')) return [];
      throw error;
    });
    const remaining = deadline - Date.now();
    if (tasks.length > 0 || remaining <= 0 || signal?.aborted) return tasks;
    const waitStart = Date.now();
    await waitForTasks(queue, Math.min(remaining, WAIT_SLICE_MS), signal);
    const waited = Date.now() - waitStart;
    if (waited < MIN_ATTEMPT_INTERVAL_MS) await sleep(MIN_ATTEMPT_INTERVAL_MS - waited, signal);
    if (signal?.aborted) return [];
  }
}

/**
 * `queue.waitForTasks`, or a plain abortable sleep while the store does not
 * implement it yet (the core declares it; the store's LISTEN/NOTIFY side is
 * separate work). Either way the loop above stays correct: it only wakes
 * later than it could.
 */
function waitForTasks(queue: TaskQueue, timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    return queue.waitForTasks(timeoutMs, signal).catch(() => sleep(timeoutMs, signal));
  } catch {
    return sleep(timeoutMs, signal);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
