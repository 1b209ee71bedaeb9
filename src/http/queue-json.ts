import type { QueueConfig } from '../core/queue-config.js';
import type { QueueStats } from '../core/task-store.js';

/** The REST representation of a queue (discovery schema `TaskQueue`). */
export interface TaskQueueJson {
  kind: 'taskqueues#taskqueue';
  id: string;
  maxLeases: number;
  acl?: { adminEmails: string[]; consumerEmails: string[]; producerEmails: string[] };
  stats?: { totalTasks: number; oldestTask?: string; leasedLastMinute: string; leasedLastHour: string };
  /** Extension: the backoff of failed tasks (`<retry-parameters>`), which REST worker runners apply. */
  retryParameters: { minBackoffSeconds: number; maxBackoffSeconds: number; maxDoublings: number };
}

/**
 * A queue as JSON. `maxLeases` is always present: the retry limit, 0 when
 * there is none (the discovery's "If unset we lease them out forever"; App
 * Engine's re-implementations answer 0, and clients written against them
 * read it unconditionally). The ACL maps queue.xml's
 * `<user-email>` to consumers and `<writer-email>` to producers, with the
 * project's `<admin-email>`s as admins; it is shown only to callers who may
 * read it. `stats.oldestTask` is in seconds since the epoch, as the
 * discovery says (unlike the task timestamps, whose unit the REST docs
 * changed to microseconds); it is absent for an empty queue.
 */
export function queueJson(
  queue: QueueConfig,
  options: { adminEmails: readonly string[] | null; stats: QueueStats | null },
): TaskQueueJson {
  const { minBackoffSeconds, maxBackoffSeconds, maxDoublings } = queue.retry;
  const json: TaskQueueJson = {
    kind: 'taskqueues#taskqueue',
    id: queue.name,
    maxLeases: queue.maxLeases ?? 0,
    retryParameters: { minBackoffSeconds, maxBackoffSeconds, maxDoublings },
  };
  if (options.adminEmails) {
    json.acl = {
      adminEmails: [...options.adminEmails],
      consumerEmails: [...queue.acl.userEmails],
      producerEmails: [...queue.acl.writerEmails],
    };
  }
  const stats = options.stats;
  if (stats) {
    json.stats = {
      totalTasks: stats.totalTasks,
      ...(stats.oldestEtaUsec === null ? {} : { oldestTask: String(Math.floor(stats.oldestEtaUsec / 1e6)) }),
      leasedLastMinute: String(stats.leasedLastMinute),
      leasedLastHour: String(stats.leasedLastHour),
    };
  }
  return json;
}
