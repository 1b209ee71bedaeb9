import { TASK_NAME_PATTERN, type Task } from '../core/task.js';
import { wholeCall } from './bulk-add.js';
import { has, int, list, scalar, text, type Message } from './protocol.js';
import { ApplicationError, SERVICE_ERROR, serviceErrorCode } from './service-error.js';
import type { TaskQueueHost } from './taskqueue-host.js';

/** QueryAndOwnTasks: `lease_tasks`, `lease_tasks_by_tag` (a tag, or group by the oldest task's). */
export async function queryAndOwnTasks(host: TaskQueueHost, request: Message): Promise<Message> {
  const queue = wholeCall(() => host.getQueue(text(request, 'queue_name')));
  const tag = has(request, 'tag') ? text(request, 'tag') : undefined;
  const tasks = await queue.leaseTasks({
    lease: scalar(request, 'lease_seconds', 0),
    maxTasks: int(request, 'max_tasks'),
    ...(tag === undefined ? {} : { tag }),
    groupByTag: scalar(request, 'group_by_tag', false),
  });
  return { task: tasks.map(leasedTask) };
}

function leasedTask(task: Task): Message {
  return {
    task_name: Buffer.from(task.name),
    eta_usec: task.etaUsec,
    retry_count: task.retryCount,
    body: task.payload,
    ...(task.tag === null ? {} : { tag: Buffer.from(task.tag) }),
  };
}

/** ModifyTaskLease: the task's lease token is the ETA it was handed (`eta_usec`). */
export async function modifyTaskLease(host: TaskQueueHost, request: Message): Promise<Message> {
  const queue = wholeCall(() => host.getQueue(text(request, 'queue_name')));
  const task = await queue.modifyTaskLease(
    { name: text(request, 'task_name'), etaUsec: int(request, 'eta_usec') },
    scalar(request, 'lease_seconds', 0),
  );
  return { updated_eta_usec: task.etaUsec };
}

/**
 * Delete: a result per name, OK, UNKNOWN_TASK or TOMBSTONED_TASK (the SDK
 * ignores the last two), in the order asked; a name given twice is
 * deleted once and reported once, DUPLICATE_TASK_NAME after.
 */
export async function deleteTasks(host: TaskQueueHost, request: Message): Promise<Message> {
  const queue = wholeCall(() => host.getQueue(text(request, 'queue_name')));
  const names = list(request, 'task_name').map((name) => Buffer.from(name as unknown as Uint8Array).toString('utf8'));
  if (names.length > 1000) {
    throw new ApplicationError(SERVICE_ERROR.TOO_MANY_TASKS, `at most 1000 tasks per Delete, got ${names.length}`);
  }
  const seen = new Set<string>();
  const valid: string[] = [];
  const result: number[] = names.map((name) => {
    if (seen.has(name)) return SERVICE_ERROR.DUPLICATE_TASK_NAME;
    seen.add(name);
    if (!TASK_NAME_PATTERN.test(name)) return SERVICE_ERROR.INVALID_TASK_NAME;
    valid.push(name);
    return SERVICE_ERROR.OK;
  });
  const deleted = valid.length === 0 ? [] : await queue.deleteTask(valid);
  const outcome = new Map(valid.map((name, i) => [name, deleted[i] === true]));
  for (const [i, name] of names.entries()) {
    if (result[i] !== SERVICE_ERROR.OK || outcome.get(name) === true) continue;
    result[i] = serviceErrorCode(await queue.missingTaskError(name));
  }
  return { result };
}
