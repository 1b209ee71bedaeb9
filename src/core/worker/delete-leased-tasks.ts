import { QueueError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { heldByForm } from '../name-holds.js';
import type { QueueContext } from '../queue-context.js';
import type { Task } from '../task.js';

/**
 * A worker's success (TaskQueue.deleteLeasedTasks): deletes tasks only while
 * each still carries the lease token given (`etaUsec`), so a holder whose
 * lease was taken over deletes nothing. True for each task deleted.
 */
export async function deleteLeasedTasks(ctx: QueueContext, tasks: readonly Pick<Task, 'name' | 'etaUsec'>[]): Promise<boolean[]> {
  const queue = ctx.ref.queueName;
  if (tasks.length > LIMITS.maxTasksPerDelete) {
    throw new QueueError('TOO_MANY_TASKS', `at most ${LIMITS.maxTasksPerDelete} tasks may be deleted at once, got ${tasks.length}`, {
      queue,
    });
  }
  const byName = new Map<string, number>();
  for (const task of tasks) {
    if (typeof task.name !== 'string' || !Number.isSafeInteger(task.etaUsec)) {
      throw new QueueError('INVALID_REQUEST', 'deleteLeasedTasks takes tasks with their lease tokens (etaUsec)', { queue });
    }
    byName.set(task.name, task.etaUsec);
  }
  const held = [...byName].map(([name, leaseToken]) => ({ name, leaseToken }));
  const byForm = held.filter((task) => heldByForm(ctx, task.name)).map((task) => task.name);
  const deleted = new Set(await ctx.store.deleteLeasedTasks({ ...ctx.ref, tasks: held, heldByForm: byForm }));
  if (deleted.size > 0) ctx.events.deleted(queue, deleted.size);
  return tasks.map((task) => deleted.has(task.name) && byName.get(task.name) === task.etaUsec);
}
