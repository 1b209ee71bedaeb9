import type { PushRequest } from '../push-task.js';
import type { ClaimedPushTask } from './push-store.js';

/** The queue name a cron firing's request carries, whatever queue delivers it: App Engine's. */
export const CRON_QUEUE_HEADER = '__cron';

/** App Engine's User-Agent of task requests; a task's own User-Agent gets it appended. */
export const PUSH_USER_AGENT = 'AppEngine-Google; (+http://code.google.com/appengine)';

/**
 * The headers of one attempt: the task's own, then the service's, each
 * `X-AppEngine-*` header mirrored as `X-CloudTasks-*` (handlers written for
 * Cloud Tasks read those). Retry count: earlier attempts; execution count:
 * earlier attempts that got a response; previous response and retry reason
 * only when there was an earlier attempt that recorded them.
 */
export function pushHeaders(
  queueName: string,
  task: ClaimedPushTask,
  request: PushRequest,
  hasBody: boolean,
  authorization: string | null,
): [string, string][] {
  const out: [string, string][] = [];
  let userAgent: string | null = null;
  let contentType = false;
  let authorized = false;
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    if (lower === 'user-agent') {
      userAgent = userAgent === null ? value : `${userAgent} ${value}`;
      continue;
    }
    if (lower === 'content-type') contentType = true;
    if (lower === 'authorization') authorized = true;
    out.push([name, value]);
  }
  out.push(['User-Agent', userAgent === null ? PUSH_USER_AGENT : `${userAgent} ${PUSH_USER_AGENT}`]);
  if (hasBody && !contentType) out.push(['Content-Type', 'application/octet-stream']);
  if (authorization !== null && !authorized) out.push(['Authorization', authorization]);
  const service: [string, string][] = [
    // App Engine names no queue for a cron request: its cron requests say `__cron`.
    ['QueueName', request.cron === undefined ? queueName : CRON_QUEUE_HEADER],
    ['TaskName', task.name],
    ['TaskRetryCount', String(task.attempt - 1)],
    ['TaskExecutionCount', String(task.executionCount)],
    ['TaskETA', etaSeconds(task.etaUsec)],
  ];
  if (task.attempt > 1 && task.lastStatus !== null) service.push(['TaskPreviousResponse', String(task.lastStatus)]);
  if (task.attempt > 1)
    service.push(['TaskRetryReason', task.lastError ?? 'no outcome recorded (the dispatcher stopped)']);
  for (const [name, value] of service) out.push([`X-AppEngine-${name}`, value]);
  for (const [name, value] of service) out.push([`X-CloudTasks-${name}`, value]);
  if (request.cron !== undefined) {
    // App Engine's cron header, and Cloud Scheduler's for handlers written for it.
    out.push(['X-Appengine-Cron', 'true'], ['X-CloudScheduler', 'true']);
    out.push(
      ['X-CloudScheduler-JobName', request.cron.job],
      ['X-CloudScheduler-ScheduleTime', request.cron.scheduleTime],
    );
  }
  return out;
}

/** Seconds since the epoch with the microseconds, as App Engine sends it (`1501022111.835003`). */
export function etaSeconds(usec: number): string {
  const seconds = Math.floor(usec / 1_000_000);
  const micros = usec - seconds * 1_000_000;
  return `${seconds}.${String(micros).padStart(6, '0')}`;
}
