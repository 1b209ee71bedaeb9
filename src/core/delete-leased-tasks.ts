import { QueueError } from './errors.js';
import { LIMITS } from './limits.js';
import { heldByForm } from './name-holds.js';
import type { QueueContext } from './queue-context.js';
import type { Task } from './task.js';

/**
 * A worker's success (TaskQueue.deleteLeasedTasks): deletes tasks only while
 * each still carries the lease token given (`etaUsec`), so a holder whose
 * lease was taken over deletes nothing. True for each task deleted.
 */
export async function deleteLeasedTasks(
  ctx: QueueContext,
  tasks: readonly Pick<Task, 'name' | 'etaUsec'>[],
): Promise<boolean[]> {
  const queue = ctx.ref.queueName;
  if (tasks.length > LIMITS.maxTasksPerDelete) {
    throw new QueueError(
      'TOO_MANY_TASKS',
      `at most ${LIMITS.maxTasksPerDelete} tasks may be deleted at once, got ${tasks.length}`,
      {
        queue,
      },
    );
  }
  // The names once each, beside their tokens (the store's two arrays): a
  // name given twice with another token is deleted only under the first.
  const byName = new Map<string, number>();
  const names: string[] = [];
  const leaseTokens: number[] = [];
  const byForm: string[] = [];
  for (const task of tasks) {
    const name = task.name;
    if (typeof name !== 'string' || !Number.isSafeInteger(task.etaUsec)) {
      throw new QueueError('INVALID_REQUEST', 'deleteLeasedTasks takes tasks with their lease tokens (etaUsec)', {
        queue,
      });
    }
    if (byName.has(name)) continue;
    byName.set(name, task.etaUsec);
    names.push(name);
    leaseTokens.push(task.etaUsec);
    if (heldByForm(ctx, name)) byForm.push(name);
  }
  const deleted = new Set(await ctx.store.deleteLeasedTasks({ ...ctx.ref, names, leaseTokens, heldByForm: byForm }));
  if (deleted.size > 0) ctx.events.deleted(queue, deleted.size);
  return tasks.map((task) => deleted.has(task.name) && byName.get(task.name) === task.etaUsec);
}
