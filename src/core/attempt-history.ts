import type { QueueContext } from './queue-context.js';
import type { Task } from './task.js';

/**
 * The pull side of the attempt history (task-attempt.ts). Both records
 * follow a statement that already committed what the caller asked (a
 * lease, a failed task handed back): a history that cannot be written must
 * not turn that success into an error the caller would retry, so a failure
 * here is dropped. The history is a diagnosis aid, never the task's state.
 */

/**
 * Tasks a lease handed out with a retry count above 1 were leased before
 * and not deleted: that earlier lease lapsed (ran out, or was handed back
 * undeleted). One statement for the lease's lapsed tasks, and none when it
 * had none (a first lease costs nothing). A failure the worker reported for
 * that lease (recordWorkerError) is kept, not replaced. `deadLettered`: the
 * tasks the lease's retry limit moved to the dead letters, whose last lease
 * lapsed (one more statement, only when there are some).
 */
export async function recordLapses(ctx: QueueContext, tasks: readonly Task[], deadLettered = 0): Promise<void> {
  const lapsed = tasks.filter((task) => task.retryCount > 1);
  try {
    // A task the retry limit moved to the dead letters lapsed too, on its last lease.
    if (deadLettered > 0) await ctx.store.recordDeadLetterLapses({ ...ctx.ref, limit: deadLettered });
    if (lapsed.length === 0) return;
    await ctx.store.recordAttempts({
      ...ctx.ref,
      attempts: lapsed.map((task) => ({
        name: task.name,
        attempt: task.retryCount - 1,
        outcome: 'lapsed' as const,
        enqueuedUsec: task.enqueuedUsec,
      })),
    });
  } catch {
    // See above: the lease stands.
  }
}

/** A worker's failure, reported with its lease (failTask, or a lease change carrying a last error). */
export async function recordWorkerError(ctx: QueueContext, task: Task, error: string): Promise<void> {
  if (task.retryCount < 1) return;
  try {
    await ctx.store.recordAttempts({
      ...ctx.ref,
      attempts: [{ name: task.name, attempt: task.retryCount, outcome: 'failed', error }],
    });
  } catch {
    // See above: the lease change stands.
  }
}
