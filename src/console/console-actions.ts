import type { Context } from 'hono';
import type { QueueOperations } from '../core/queue-operations.js';
import { guardAction } from './action-guard.js';
import { showError } from './console-errors.js';
import type { ConsoleContext } from './console-deps.js';

/** The actions, by the last segment of their URL: POST /console/queues/:queue/:action. */
export const ACTIONS = ['pause', 'resume', 'purge', 'delete', 'release', 'redrive', 'run'] as const;
export type ConsoleAction = (typeof ACTIONS)[number];

/**
 * Runs one administrator action through the core's operator API (which
 * records it in the audit log under the viewer's e-mail, source
 * `console`), then sends the browser back to the queue (POST, redirect,
 * GET). Refused, before anything happens: requests a browser marks
 * cross-site, a missing or wrong CSRF token, a caller who is not signed in
 * or not an administrator, and a purge whose confirmation is not the
 * queue's name.
 */
export async function runAction(c: Context, ctx: ConsoleContext, action: ConsoleAction): Promise<Response> {
  const guarded = await guardAction(c, ctx);
  if (guarded instanceof Response) return guarded;
  const { viewer, form, config, back } = guarded;
  const name = config.name;
  const operations = ctx.service.operate(name, { actor: viewer.email ?? 'anonymous', source: 'console' });
  const task = typeof form.task === 'string' && form.task !== '' ? form.task : null;

  if (action === 'purge' && form.confirm !== name) {
    return showError(c, viewer, 400, 'Not purged', 'To purge, type the queue name exactly as shown.', back);
  }
  if ((action === 'delete' || action === 'release' || action === 'run') && task === null) {
    return showError(c, viewer, 400, 'Nothing done', 'Name the task.', back);
  }
  const count = await perform(operations, action, task);
  // The outcome travels as an action and a count, never as text: the page words it.
  // Back to the tab the action was taken on (dead letters have theirs).
  const tab = form.tab === 'dead-letters' ? '/dead-letters' : '';
  return c.redirect(`${back}${tab}?done=${action}&n=${count}`, 303);
}

/** The action, and how many tasks it touched (for the notice). */
async function perform(operations: QueueOperations, action: ConsoleAction, task: string | null): Promise<number> {
  switch (action) {
    case 'pause':
      await operations.pause();
      return 0;
    case 'resume':
      await operations.resume();
      return 0;
    case 'purge':
      return operations.purge();
    case 'delete':
      return (await operations.deleteTasks([task as string]))[0] ? 1 : 0;
    case 'release':
      return (await operations.releaseLease(task as string)).released ? 1 : 0;
    case 'redrive':
      return operations.redrive(task === null ? undefined : [task]);
    case 'run':
      return (await operations.runNow({ names: [task as string] })).count;
  }
}

/**
 * What the queue page says after an action (from `?done=&n=`, and `&of=`
 * after a selection), in the words of the queue's mode: a push queue is
 * dispatched, not leased. A selection only partly done says how many were
 * not, and why.
 */
export function noticeOf(
  done: string | undefined,
  n: string | undefined,
  options: { readonly push?: boolean; readonly of?: string | undefined } = {},
): string | null {
  const count = Number(n);
  const tasks = (k: number) => `${k} task${k === 1 ? '' : 's'}`;
  if (!Number.isSafeInteger(count) || count < 0) return null;
  const asked = Number(options.of);
  const missed = Number.isSafeInteger(asked) && asked > count ? asked - count : 0;
  const notDone = (why: string) => (missed === 0 ? '' : ` ${missed} of the ${asked} selected ${why}.`);
  switch (done) {
    case 'pause':
      return options.push
        ? 'Paused: nothing is dispatched until the queue is resumed (adds are accepted; requests in flight finish).'
        : 'Paused: leases return no tasks until the queue is resumed.';
    case 'resume':
      return options.push ? 'Resumed: its tasks are dispatched again.' : 'Resumed: leases return tasks again.';
    case 'purge':
      return `Purged ${tasks(count)}.`;
    case 'delete':
      return (
        (count === 0
          ? 'Nothing deleted: already gone.'
          : count === 1
            ? 'Deleted the task.'
            : `Deleted ${tasks(count)}.`) +
        notDone(`${missed === 1 ? 'was' : 'were'} already gone (done, deleted or purged meanwhile)`)
      );
    case 'release':
      if (count === 0 && missed === 0) return 'The task was not leased: nothing to release.';
      return (
        (count === 0
          ? 'Released no lease.'
          : count === 1
            ? 'Released the lease: the task is available again.'
            : `Released the leases of ${tasks(count)}: available again.`) +
        notDone(
          `${missed === 1 ? 'was' : 'were'} not leased (the lease had ended, or the task was gone): nothing to release`,
        )
      );
    case 'redrive':
      return (
        `Put back ${tasks(count)} from the dead letters.` +
        notDone(`${missed === 1 ? 'was' : 'were'} no longer dead letters (put back or deleted meanwhile)`)
      );
    case 'run':
      if (count === 0) return 'Nothing run: the task was due already, being delivered, or gone.';
      return count === 1 ? 'Made the task due now.' : `Made ${tasks(count)} due now.`;
    case 'forget':
      return (
        `Deleted ${count} dead letter${count === 1 ? '' : 's'} for good.` +
        notDone(`${missed === 1 ? 'was' : 'were'} already gone`)
      );
    default:
      return null;
  }
}
