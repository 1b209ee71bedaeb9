import { isQueueError, QueueError } from '../core/errors.js';
import type { TaskQueue } from '../core/task-queue.js';
import type { Task } from '../core/task.js';

/**
 * For a request that reads, modifies or deletes a task by name, a name held
 * by a tombstone is simply a task that is gone: 404, with the core's
 * message saying it was deleted. (TOMBSTONED_TASK keeps its 409 "item
 * exists" status where it belongs: inserting a name that is still held.)
 */
export function tombstoneAsNotFound(error: unknown): unknown {
  if (!isQueueError(error, 'TOMBSTONED_TASK')) return error;
  return new QueueError('UNKNOWN_TASK', error.message, error.details, { cause: error });
}

/** The live task of that name, or a 404 error. */
export async function getLiveTask(queue: TaskQueue, name: string): Promise<Task> {
  try {
    return await queue.getTask(name);
  } catch (error) {
    throw tombstoneAsNotFound(error);
  }
}
