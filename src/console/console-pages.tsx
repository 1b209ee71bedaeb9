import type { Context } from 'hono';
import type { QueueConfig } from '../core/queue-config.js';
import type { TaskLeaseRef } from '../core/task-queue.js';
import type { TaskState } from '../core/task-store.js';
import { noticeOf } from './console-actions.js';
import type { ConsoleContext } from './console-deps.js';
import { showError } from './console-errors.js';
import { clearSessionCookie, csrfMatches, isCrossSite, setSessionCookie } from './console-session.js';
import { isSignedOut, resolveViewer, type Viewer } from './console-viewer.js';
import { AuditPage } from './audit-page.js';
import { QueuePage } from './queue-page.js';
import { QueuesPage } from './queues-page.js';
import { QueuesTable } from './queues-table.js';
import { renderFragment, renderPage } from './render-page.js';
import { SignInPage } from './sign-in-page.js';

const TASK_PAGE = 50;
const AUDIT_PAGE = 100;

/** The viewer of a page request, or the response that sends a signed-out browser to sign in. */
export async function viewerOrSignIn(c: Context, ctx: ConsoleContext): Promise<Viewer | Response> {
  const viewer = await resolveViewer(c, ctx.accessControl, ctx.service.queues());
  if (!isSignedOut(viewer)) return viewer;
  // A session whose token stopped working: drop the cookie, say why.
  if (viewer.message !== null) clearSessionCookie(c);
  return c.redirect(viewer.message === null ? '/console/sign-in' : '/console/sign-in?ended=1', 303);
}

/** The queues this viewer may read (REST's `queue.get`), in configuration order. */
async function readableQueues(viewer: Viewer, queues: readonly QueueConfig[]): Promise<QueueConfig[]> {
  const allowed = await Promise.all(queues.map((queue) => viewer.may(queue, 'queue.get')));
  return queues.filter((_, i) => allowed[i]);
}

async function readableOverview(ctx: ConsoleContext, viewer: Viewer) {
  const names = new Set((await readableQueues(viewer, ctx.service.queues())).map((queue) => queue.name));
  return ctx.service.overview([...names]);
}

export async function queuesPage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const queues = await readableOverview(ctx, viewer);
  return renderPage(c, { title: 'Queues', viewer, body: <QueuesPage queues={queues} refreshSeconds={ctx.refreshSeconds} /> });
}

export async function queuesTable(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  return renderFragment(c, <QueuesTable queues={await readableOverview(ctx, viewer)} refreshSeconds={ctx.refreshSeconds} />);
}

/** The queue a path names, when the viewer may read it; null otherwise (the same answer either way). */
async function readableQueue(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<QueueConfig | null> {
  const name = c.req.param('queue') ?? '';
  const config = ctx.service.queues().find((queue) => queue.name === name);
  return config && (await viewer.may(config, 'queue.get')) ? config : null;
}

export async function queuePage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const config = await readableQueue(c, ctx, viewer);
  if (!config) return showError(c, viewer, 404, 'No such queue', 'There is no queue of that name that you may see.', '/console');
  const operations = ctx.service.operate(config.name, { actor: viewer.email ?? 'anonymous', source: 'console' });
  const [overview] = await ctx.service.overview([config.name]);
  if (!overview) return showError(c, viewer, 404, 'No such queue', 'The queue is not in the database.', '/console');

  const stateParam = c.req.query('state') ?? '';
  const state: TaskState | null = stateParam === 'available' || stateParam === 'leased' || stateParam === 'delayed' ? stateParam : null;
  const tagParam = c.req.query('tag') ?? '';
  const tag = tagParam === '' ? null : tagParam;
  const after = parseAfter(c.req.query('after'));
  const mayList = await viewer.may(config, 'task.list');

  // A task list one longer than the page tells whether a next page exists.
  const [page, tombstones, deadLetters] = mayList
    ? await Promise.all([
        operations.browseTasks({
          limit: TASK_PAGE + 1,
          ...(state === null ? {} : { state }),
          ...(tag === null ? {} : { tag }),
          ...(after === null ? {} : { after }),
        }),
        operations.listTombstones({ limit: 20 }),
        operations.listDeadLetters({ limit: 100 }),
      ])
    : [null, null, null];
  const tasks = page?.slice(0, TASK_PAGE) ?? null;
  let nextTasks: string | null = null;
  if (page && page.length > TASK_PAGE && tasks) {
    const last = tasks[tasks.length - 1]!;
    const query = new URLSearchParams({ ...(state ? { state } : {}), ...(tag ? { tag } : {}), after: `${last.etaUsec}:${last.name}` });
    nextTasks = `/console/queues/${encodeURIComponent(config.name)}?${query.toString()}`;
  }
  const data = {
    overview,
    tasks,
    filter: { state, tag },
    nextTasks,
    tombstones,
    deadLetters,
    notice: noticeOf(c.req.query('done'), c.req.query('n')),
  };
  return renderPage(c, { title: config.name, viewer, body: <QueuePage viewer={viewer} data={data} /> });
}

/** `?after=<etaUsec>:<name>`: where the next page of tasks starts. */
function parseAfter(value: string | undefined): TaskLeaseRef | null {
  const match = value === undefined ? null : /^(\d{1,17}):([a-zA-Z0-9_-]{1,500})$/.exec(value);
  return match ? { etaUsec: Number(match[1]), name: match[2] as string } : null;
}

/**
 * A queue's charts over the last hour: depth from this process's samples of
 * the overview, leases per minute from the database's lease history (every
 * process's leases, and there since before this process started).
 */
export async function queueSeries(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const config = await readableQueue(c, ctx, viewer);
  if (!config) return c.json({ error: 'no such queue' }, 404);
  const counts = await ctx.service.operate(config.name, { actor: viewer.email ?? 'anonymous', source: 'console' }).leasesPerMinute();
  return c.json({
    depth: ctx.sampler.series(config.name),
    leases: { at: counts.map((count) => count.minuteStart), tasks: counts.map((count) => count.tasks) },
  });
}

export async function auditPage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const before = Number(c.req.query('before'));
  const entries = await ctx.auditLog.list({ limit: AUDIT_PAGE, ...(Number.isSafeInteger(before) && before > 0 ? { before: { id: before } } : {}) });
  // Everyone sees the actions on queues they may read; administrators see all.
  const readable = new Set((await readableQueues(viewer, ctx.service.queues())).map((queue) => queue.name));
  const shown = viewer.admin ? entries : entries.filter((entry) => readable.has(entry.queue));
  const next = entries.length === AUDIT_PAGE ? `/console/audit?before=${entries[entries.length - 1]!.id}` : null;
  return renderPage(c, { title: 'Audit log', viewer, body: <AuditPage entries={shown} next={next} /> });
}

export async function signInPage(c: Context, ctx: ConsoleContext): Promise<Response> {
  // Already signed in (or a proxy signs every request in, or access control is off): nothing to do here.
  const viewer = await resolveViewer(c, ctx.accessControl, ctx.service.queues());
  if (!isSignedOut(viewer)) return c.redirect('/console', 303);
  const message = c.req.query('ended') === undefined ? null : 'Your session ended: the token expired or is no longer accepted. Sign in again.';
  return renderPage(c, { title: 'Sign in', viewer: null, body: <SignInPage message={message} /> });
}

/**
 * Checks a pasted token with the access control REST uses; when it is good
 * for this console, keeps it in the session cookie, which expires with it.
 */
export async function signIn(c: Context, ctx: ConsoleContext): Promise<Response> {
  if (isCrossSite(c)) return showError(c, null, 403, 'Refused', 'Sign in from the console itself.');
  const form = await c.req.parseBody();
  const pasted = typeof form.token === 'string' ? form.token.trim().replace(/^bearer\s+/i, '') : '';
  const refuse = (message: string) => renderPage(c, { title: 'Sign in', viewer: null, body: <SignInPage message={message} /> }, 401);
  if (pasted === '' || /\s/.test(pasted)) return refuse('Paste one bearer token.');
  const viewer = await resolveViewer(c, ctx.accessControl, ctx.service.queues(), pasted);
  if (isSignedOut(viewer)) return refuse(viewer.message ?? 'The token was not accepted.');
  if (viewer.via === 'open') return c.redirect('/console', 303);
  if (viewer.expiresAt !== null && viewer.expiresAt <= Date.now()) return refuse('The token has expired.');
  setSessionCookie(c, pasted, viewer.expiresAt);
  return c.redirect('/console', 303);
}

export async function signOut(c: Context, ctx: ConsoleContext): Promise<Response> {
  if (isCrossSite(c)) return showError(c, null, 403, 'Refused', 'Sign out from the console itself.');
  const viewer = await resolveViewer(c, ctx.accessControl, ctx.service.queues());
  const form = await c.req.parseBody();
  if (!isSignedOut(viewer) && !csrfMatches(form._csrf, viewer.csrf)) {
    return showError(c, viewer, 403, 'Refused', 'The form was stale or did not come from this console.');
  }
  clearSessionCookie(c);
  return c.redirect('/console/sign-in', 303);
}
