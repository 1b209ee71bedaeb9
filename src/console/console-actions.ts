import type { Context } from 'hono';
import type { AuditAction } from '../core/audit-log.js';
import type { TaskQueue } from '../core/task-queue.js';
import { showError } from './console-errors.js';
import { csrfMatches, isCrossSite } from './console-session.js';
import type { ConsoleContext } from './console-deps.js';
import { isSignedOut, resolveViewer } from './console-viewer.js';

/** The actions, by the last segment of their URL: POST /console/queues/:queue/:action. */
export const ACTIONS = ['pause', 'resume', 'purge', 'delete', 'release', 'redrive'] as const;
export type ConsoleAction = (typeof ACTIONS)[number];

const AUDITED: Record<ConsoleAction, AuditAction> = {
  pause: 'pause',
  resume: 'resume',
  purge: 'purge',
  delete: 'delete_task',
  release: 'release_lease',
  redrive: 'redrive',
};

/**
 * Runs one administrator action through the core and records it in the
 * audit log, then sends the browser back to the queue (POST, redirect,
 * GET). Refused, before anything happens: requests a browser marks
 * cross-site, a missing or wrong CSRF token, a caller who is not signed in
 * or not an administrator, and a purge whose confirmation is not the
 * queue's name.
 */
export async function runAction(c: Context, ctx: ConsoleContext, action: ConsoleAction): Promise<Response> {
  if (isCrossSite(c)) return showError(c, null, 403, 'Refused', 'Actions must come from the console itself.');
  const queues = ctx.service.queues();
  const viewer = await resolveViewer(c, ctx.accessControl, queues);
  if (isSignedOut(viewer)) return showError(c, null, 401, 'Signed out', 'Sign in again to do that.', '/console/sign-in');
  const form = await c.req.parseBody();
  if (!csrfMatches(form._csrf, viewer.csrf)) {
    return showError(c, viewer, 403, 'Refused', 'The form was stale or did not come from this console. Reload the page and try again.');
  }
  if (!viewer.admin) return showError(c, viewer, 403, 'Refused', 'Only administrators may act on queues.');
  const name = c.req.param('queue') ?? '';
  const config = queues.find((queue) => queue.name === name);
  if (!config) return showError(c, viewer, 404, 'No such queue', `There is no queue "${name}".`, '/console');
  const queue = ctx.service.getQueue(name);
  const task = typeof form.task === 'string' && form.task !== '' ? form.task : null;
  const back = `/console/queues/${encodeURIComponent(name)}`;

  if (action === 'purge' && form.confirm !== name) {
    return showError(c, viewer, 400, 'Not purged', 'To purge, type the queue name exactly as shown.', back);
  }
  if ((action === 'delete' || action === 'release') && task === null) {
    return showError(c, viewer, 400, 'Nothing done', 'Name the task.', back);
  }
  const count = await perform(queue, action, task);
  await ctx.auditLog.record({ actor: viewer.email ?? 'anonymous', action: AUDITED[action], queue: name, target: task, count });
  // The outcome travels as an action and a count, never as text: the page words it.
  // Back to the tab the action was taken on (dead letters have theirs).
  const tab = form.tab === 'dead-letters' ? '/dead-letters' : '';
  return c.redirect(`${back}${tab}?done=${action}&n=${count}`, 303);
}

async function perform(queue: TaskQueue, action: ConsoleAction, task: string | null): Promise<number> {
  switch (action) {
    case 'pause':
      await queue.pause();
      return 0;
    case 'resume':
      await queue.resume();
      return 0;
    case 'purge':
      return queue.purge();
    case 'delete':
      return (await queue.deleteTask(task as string)) ? 1 : 0;
    case 'release':
      await queue.releaseLease(task as string);
      return 1;
    case 'redrive':
      return queue.redrive(task === null ? undefined : [task]);
  }
}

/** What the queue page says after an action (from `?done=&n=`). */
export function noticeOf(done: string | undefined, n: string | undefined): string | null {
  const count = Number(n);
  const tasks = (k: number) => `${k} task${k === 1 ? '' : 's'}`;
  if (!Number.isSafeInteger(count) || count < 0) return null;
  switch (done) {
    case 'pause':
      return 'Paused: leases return no tasks until the queue is resumed.';
    case 'resume':
      return 'Resumed: leases return tasks again.';
    case 'purge':
      return `Purged ${tasks(count)}.`;
    case 'delete':
      return count === 0 ? 'The task was already gone.' : 'Deleted the task.';
    case 'release':
      return 'Released the lease: the task is available again.';
    case 'redrive':
      return `Put back ${tasks(count)} from the dead letters.`;
    default:
      return null;
  }
}
