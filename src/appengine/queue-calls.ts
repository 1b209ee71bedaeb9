import type { QueueConfig } from '../core/queue-config.js';
import type { Task } from '../core/task.js';
import { wholeCall } from './bulk-add.js';
import { has, int, list, scalar, text, type Message } from './protocol.js';
import { ApplicationError, SERVICE_ERROR } from './service-error.js';
import { APP_ENGINE_OPERATOR, type TaskQueueHost } from './taskqueue-host.js';

/** PurgeQueue: the operator action, audited under the App Engine source. */
export async function purgeQueue(host: TaskQueueHost, request: Message): Promise<Message> {
  const operations = wholeCall(() => host.operate(text(request, 'queue_name', 'default'), APP_ENGINE_OPERATOR));
  await operations.purge();
  return {};
}

/** PauseQueue: pause or resume, audited. */
export async function pauseQueue(host: TaskQueueHost, request: Message): Promise<Message> {
  const operations = wholeCall(() => host.operate(text(request, 'queue_name'), APP_ENGINE_OPERATOR));
  await (scalar(request, 'pause', false) ? operations.pause() : operations.resume());
  return {};
}

/** DeleteQueue and UpdateStorageLimit: queues and their limits are the configuration's to say. */
export function refusedByConfiguration(call: string): () => Promise<Message> {
  return () =>
    Promise.reject(
      new ApplicationError(
        SERVICE_ERROR.PERMISSION_DENIED,
        `${call} is not served: queues and their storage limits are defined by the service's queue configuration (queue.yaml / queue.xml)`,
      ),
    );
}

/**
 * FetchQueueStats: per queue asked, in order, its task count, oldest ETA
 * (-1 when empty) and the leases of the last minute and hour as the
 * scanner's executions.
 */
export async function fetchQueueStats(host: TaskQueueHost, request: Message): Promise<Message> {
  const names = list(request, 'queue_name').map((name) => Buffer.from(name as unknown as Uint8Array).toString('utf8'));
  const queues = names.map((name) => wholeCall(() => host.getQueue(name)));
  const stats = await Promise.all(queues.map((queue) => queue.fetchStatistics()));
  return {
    queueStats: stats.map((s) => ({
      num_tasks: s.totalTasks,
      oldest_eta_usec: s.oldestEtaUsec ?? -1,
      scanner_info: {
        executed_last_minute: s.leasedLastMinute,
        executed_last_hour: s.leasedLastHour,
        sampling_duration_seconds: 3600,
      },
    })),
  };
}

/** FetchQueues: the configured queues, with their rate, retry parameters, mode and whether paused. */
export async function fetchQueues(host: TaskQueueHost, request: Message): Promise<Message> {
  const maxRows = has(request, 'max_rows') ? int(request, 'max_rows') : Number.MAX_SAFE_INTEGER;
  const queues = host.queues().slice(0, Math.max(0, maxRows));
  const paused = new Map((await host.overview(queues.map((q) => q.name))).map((o) => [o.name, o.paused]));
  return { queue: queues.map((queue) => queueMessage(queue, paused.get(queue.name) === true)) };
}

function queueMessage(queue: QueueConfig, paused: boolean): Message {
  const rate = queue.push?.ratePerSecond ?? 0;
  return {
    queue_name: Buffer.from(queue.name),
    bucket_refill_per_second: rate,
    bucket_capacity: queue.push?.bucketSize ?? 0,
    user_specified_rate: queue.mode === 'push' ? `${rate}/s` : '',
    paused,
    retry_parameters: {
      ...(queue.maxLeases === null ? {} : { retry_limit: queue.maxLeases }),
      ...(queue.retry.ageLimitSeconds === null ? {} : { age_limit_sec: Math.round(queue.retry.ageLimitSeconds) }),
      min_backoff_sec: queue.retry.minBackoffSeconds,
      max_backoff_sec: queue.retry.maxBackoffSeconds,
      max_doublings: queue.retry.maxDoublings,
    },
    ...(queue.push?.maxConcurrentRequests == null ? {} : { max_concurrent_requests: queue.push.maxConcurrentRequests }),
    mode: queue.mode === 'pull' ? 1 : 0,
    creator_name: 'apphosting',
  };
}

/** QueryTasks: a page of a queue's tasks in ETA order, after (start_eta_usec, start_task_name). */
export async function queryTasks(host: TaskQueueHost, request: Message): Promise<Message> {
  const operations = wholeCall(() => host.operate(text(request, 'queue_name'), APP_ENGINE_OPERATOR));
  const after =
    has(request, 'start_task_name') && has(request, 'start_eta_usec')
      ? { name: text(request, 'start_task_name'), etaUsec: int(request, 'start_eta_usec') }
      : undefined;
  const tasks = await operations.browseTasks({
    limit: Math.min(1000, Math.max(1, int(request, 'max_rows', 1))),
    ...(after === undefined ? {} : { after }),
  });
  return { task: tasks.map(taskMessage) };
}

/** FetchTask: one task by name (UNKNOWN_TASK or TOMBSTONED_TASK when it is not live). */
export async function fetchTask(host: TaskQueueHost, request: Message): Promise<Message> {
  const queue = wholeCall(() => host.getQueue(text(request, 'queue_name')));
  const task = await queue.getTask(text(request, 'task_name'));
  return { task: { task: [taskMessage(task)] } };
}

const METHOD_NUMBERS: Record<string, number> = { GET: 1, POST: 2, HEAD: 3, PUT: 4, DELETE: 5 };

function taskMessage(task: Task): Message {
  return {
    task_name: Buffer.from(task.name),
    eta_usec: task.etaUsec,
    retry_count: task.retryCount,
    body_size: task.payload.length,
    body: task.payload,
    creation_time_usec: task.enqueuedUsec,
    ...(task.tag === null ? {} : { tag: Buffer.from(task.tag) }),
    ...(task.push
      ? {
          url: Buffer.from(task.push.url),
          method: METHOD_NUMBERS[task.push.method] ?? 2,
          header: task.push.headers.map(([key, value]) => ({ key: Buffer.from(key), value: Buffer.from(value) })),
          ...(task.delivery ? { execution_count: task.delivery.executionCount } : {}),
          ...(task.push.deadlineSeconds === null ? {} : { dispatch_deadline_usec: task.push.deadlineSeconds * 1e6 }),
        }
      : {}),
  };
}
