import { QueueError } from '../core/errors.js';
import type { QueueConfig } from '../core/queue-config.js';
import type { TaskOptions } from '../core/task.js';
import type { TaskRetryOptions } from '../core/push/push-task.js';
import { bytes, has, int, list, scalar, text, type Message } from './protocol.js';

/** TaskQueueMode.Mode numbers. */
const MODE_PUSH = 0;
const MODE_PULL = 1;

/** TaskQueueAddRequest.RequestMethod numbers. */
const METHODS = { 1: 'GET', 2: 'POST', 3: 'HEAD', 4: 'PUT', 5: 'DELETE' } as const;

/** Whether an add is bound to a datastore transaction (which this service cannot join). */
export function isTransactional(add: Message): boolean {
  return has(add, 'transaction') || has(add, 'datastore_transaction');
}

/** The mode an add asks for: the SDK always sets it (push unless the task is PULL). */
export function addMode(add: Message): 'push' | 'pull' {
  return int(add, 'mode', MODE_PUSH) === MODE_PULL ? 'pull' : 'push';
}

/**
 * The in-process API's task of one TaskQueueAddRequest. The SDK sends the
 * URL already joined to the queue's path (`/_ah/queue/<queue>`), the ETA
 * always (now when the task gave none), headers as pairs, and only the
 * retry parameters the task set. Throws QueueError for what no queue can
 * take (the caller makes it this task's result).
 */
export function toTaskOptions(add: Message, queue: QueueConfig): TaskOptions {
  if (has(add, 'payload') || has(add, 'cronTimetable')) {
    throw new QueueError('INVALID_REQUEST', 'admin-console payloads and cron timetables cannot be added as tasks', {
      queue: queue.name,
    });
  }
  const name = text(add, 'task_name');
  const common: { name?: string; etaUsec?: number } = {
    ...(name === '' ? {} : { name }),
    ...(has(add, 'eta_usec') ? { etaUsec: int(add, 'eta_usec') } : {}),
  };
  if (queue.mode === 'pull') {
    return {
      ...common,
      method: 'PULL',
      payload: bytes(add, 'body'),
      ...(has(add, 'tag') ? { tag: text(add, 'tag') } : {}),
    };
  }
  const method = METHODS[int(add, 'method', 2) as keyof typeof METHODS];
  if (method === undefined) {
    throw new QueueError('INVALID_REQUEST', `unknown HTTP method number ${int(add, 'method')}`, { queue: queue.name });
  }
  const headers = list(add, 'header').map((h) => [text(h, 'key'), text(h, 'value')] as const);
  const body = bytes(add, 'body');
  const retry = has(add, 'retry_parameters') ? retryOptions(add['retry_parameters'] as Message) : undefined;
  return {
    ...common,
    method,
    ...(has(add, 'url') ? { url: text(add, 'url') } : {}),
    ...(headers.length > 0 ? { headers } : {}),
    ...(body.length > 0 ? { payload: body } : {}),
    ...(retry === undefined ? {} : { retryOptions: retry }),
    ...(has(add, 'dispatch_deadline_usec')
      ? { dispatchDeadlineSeconds: int(add, 'dispatch_deadline_usec') / 1_000_000 }
      : {}),
  };
}

/** TaskQueueRetryParameters as a task's retry options: only the fields set. */
function retryOptions(p: Message): TaskRetryOptions {
  return {
    ...(has(p, 'retry_limit') ? { taskRetryLimit: int(p, 'retry_limit') } : {}),
    ...(has(p, 'age_limit_sec') ? { taskAgeLimitSeconds: int(p, 'age_limit_sec') } : {}),
    ...(has(p, 'min_backoff_sec') ? { minBackoffSeconds: scalar(p, 'min_backoff_sec', 0.1) } : {}),
    ...(has(p, 'max_backoff_sec') ? { maxBackoffSeconds: scalar(p, 'max_backoff_sec', 3600) } : {}),
    ...(has(p, 'max_doublings') ? { maxDoublings: int(p, 'max_doublings') } : {}),
  };
}
