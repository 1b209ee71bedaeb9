import { isQueueError } from '../core/errors.js';
import type { Task, TaskOptions } from '../core/task.js';
import type { TaskQueue } from '../core/task-queue.js';
import { validateNewTask } from '../core/validate-task.js';
import { addMode, isTransactional, toTaskOptions } from './add-request.js';
import { list, text, type Message } from './protocol.js';
import { ApplicationError, SERVICE_ERROR, serviceErrorCode } from './service-error.js';
import type { TaskQueueHost } from './taskqueue-host.js';

/** One task's outcome: a service error code, and the name the service chose for an unnamed task. */
export interface AddResult {
  readonly result: number;
  readonly chosenName?: string;
}

/** Conflicts that concern one task only: the others of the batch are still added (as App Engine did). */
const PER_TASK_CONFLICTS = new Set(['TASK_ALREADY_EXISTS', 'TOMBSTONED_TASK', 'DUPLICATE_TASK_NAME']);

/**
 * BulkAdd, as App Engine answered it. Whole-call failures (an unknown
 * queue, a mode the queue does not have, a transactional add, too many
 * tasks) add nothing. Each task is then checked: when any is invalid,
 * nothing is added, it gets its error and the others SKIPPED. Otherwise
 * the tasks go in one statement; if that meets a name already taken, each
 * task is added on its own, so the others are added and the taken ones get
 * TASK_ALREADY_EXISTS or TOMBSTONED_TASK.
 */
export async function bulkAdd(host: TaskQueueHost, adds: readonly Message[]): Promise<AddResult[]> {
  if (adds.length === 0) return [];
  if (adds.some(isTransactional)) {
    throw new ApplicationError(
      SERVICE_ERROR.INVALID_REQUEST,
      'transactional adds are not supported: the task would be bound to a datastore transaction this service cannot join; nothing was added',
    );
  }
  if (adds.length > 100) {
    throw new ApplicationError(SERVICE_ERROR.TOO_MANY_TASKS, `at most 100 tasks per BulkAdd, got ${adds.length}`);
  }
  const queueName = text(adds[0] as Message, 'queue_name');
  if (adds.some((add) => text(add, 'queue_name') !== queueName)) {
    throw new ApplicationError(SERVICE_ERROR.INVALID_REQUEST, 'the tasks of one BulkAdd must name one queue');
  }
  const queue = wholeCall(() => host.getQueue(queueName));
  if (adds.some((add) => addMode(add) !== queue.config.mode)) {
    throw new ApplicationError(
      SERVICE_ERROR.INVALID_QUEUE_MODE,
      `queue "${queueName}" is a ${queue.config.mode} queue; the tasks were not ${queue.config.mode} tasks`,
    );
  }
  const options: (TaskOptions | null)[] = [];
  const results: number[] = [];
  for (const [index, add] of adds.entries()) {
    try {
      const task = toTaskOptions(add, queue.config);
      validateNewTask(queue.config, task, index);
      options.push(task);
      results.push(SERVICE_ERROR.OK);
    } catch (error) {
      if (!isQueueError(error)) throw error;
      options.push(null);
      results.push(serviceErrorCode(error));
    }
  }
  if (results.some((r) => r !== SERVICE_ERROR.OK)) {
    return results.map((result) => ({ result: result === SERVICE_ERROR.OK ? SERVICE_ERROR.SKIPPED : result }));
  }
  const tasks = options as TaskOptions[];
  try {
    return (await queue.add(tasks)).map((task, i) => added(task, tasks[i] as TaskOptions));
  } catch (error) {
    if (!isQueueError(error) || !PER_TASK_CONFLICTS.has(error.code)) throw error;
  }
  return addOneByOne(queue, tasks);
}

/** The tasks one statement each: a taken name fails only its own task. */
async function addOneByOne(queue: TaskQueue, tasks: readonly TaskOptions[]): Promise<AddResult[]> {
  const seen = new Set<string>();
  const out: AddResult[] = [];
  for (const task of tasks) {
    if (task.name !== undefined && seen.has(task.name)) {
      out.push({ result: SERVICE_ERROR.DUPLICATE_TASK_NAME });
      continue;
    }
    if (task.name !== undefined) seen.add(task.name);
    try {
      out.push(added(await queue.add(task), task));
    } catch (error) {
      if (!isQueueError(error) || !PER_TASK_CONFLICTS.has(error.code)) throw error;
      out.push({ result: serviceErrorCode(error) });
    }
  }
  return out;
}

function added(stored: Task, asked: TaskOptions): AddResult {
  return asked.name === undefined
    ? { result: SERVICE_ERROR.OK, chosenName: stored.name }
    : { result: SERVICE_ERROR.OK };
}

/** Runs a lookup whose QueueError fails the whole call (UNKNOWN_QUEUE). */
export function wholeCall<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (isQueueError(error)) throw new ApplicationError(serviceErrorCode(error), error.message);
    throw error;
  }
}

/** BulkAdd's request's tasks. */
export function addRequests(request: Message): Message[] {
  return list(request, 'add_request');
}
