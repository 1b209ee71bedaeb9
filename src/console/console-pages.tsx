import type { Context } from 'hono';
import { AUDIT_ACTIONS } from '../core/audit-log.js';
import type { ConsoleContext } from './console-deps.js';
import { showError } from './console-errors.js';
import { clearSessionCookie, csrfMatches, isCrossSite, setSessionCookie } from './console-session.js';
import { isSignedOut, resolveViewer, type Viewer } from './console-viewer.js';
import { AuditPage } from './audit-page.js';
import { QueuesPage } from './queues-page.js';
import { queuesData } from './queues-data.js';
import { QueuesTable } from './queues-table.js';
import { readableQueues } from './readable.js';
import { renderFragment, renderPage } from './render-page.js';
import { SignInPage } from './sign-in-page.js';

const AUDIT_PAGE = 100;

/** The viewer of a page request, or the response that sends a signed-out browser to sign in. */
export async function viewerOrSignIn(c: Context, ctx: ConsoleContext): Promise<Viewer | Response> {
  const viewer = await resolveViewer(c, ctx.accessControl, ctx.service.queues());
  if (!isSignedOut(viewer)) return viewer;
  // A session whose token stopped working: drop the cookie, say why. Either
  // way, sign-in returns to the page asked for.
  if (viewer.message !== null) clearSessionCookie(c);
  const url = new URL(c.req.url);
  const query = new URLSearchParams(viewer.message === null ? {} : { ended: '1' });
  const here = `${url.pathname}${url.search}`;
  // Not back to a chart's data: to the page that drew it, which the browser shows anyway.
  if (here !== '/console' && here !== '/console/' && !url.pathname.endsWith('.json')) query.set('next', here);
  const search = query.toString();
  return c.redirect(`/console/sign-in${search === '' ? '' : `?${search}`}`, 303);
}

/** Where sign-in may send the browser back to: a console page of this server, nothing else. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !/^\/console(\/|\?|$)/.test(next) || next.startsWith('/console/sign-'))
    return '/console';
  return /[\\\s]|\/\//.test(next) ? '/console' : next;
}

export async function queuesPage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  return renderPage(c, {
    title: 'Queues',
    viewer,
    refreshSeconds: ctx.refreshSeconds,
    body: <QueuesPage data={await queuesData(c, ctx, viewer)} thresholds={ctx.triage} nowMs={Date.now()} />,
  });
}

export async function queuesTable(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const { filter, queues } = await queuesData(c, ctx, viewer);
  return renderFragment(c, <QueuesTable queues={queues} filter={filter} nowMs={Date.now()} />);
}

/** The audit log, newest first, a page at a time, filtered by queue, actor, action and source. */
export async function auditPage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const field = (name: string) => {
    const value = (c.req.query(name) ?? '').trim();
    return value === '' ? null : value;
  };
  const filter = {
    queue: field('queue'),
    actor: field('actor'),
    action: AUDIT_ACTIONS.find((action) => action === field('action')) ?? null,
    source: field('source'),
    since: utcMinute(field('since')) === null ? null : field('since'),
    until: utcMinute(field('until')) === null ? null : field('until'),
  };
  const before = Number(c.req.query('before'));
  const since = utcMinute(filter.since);
  const until = utcMinute(filter.until);
  // Everyone sees the actions on queues they may read; administrators see all.
  const readable = new Set((await readableQueues(viewer, ctx.service.queues())).map((queue) => queue.name));
  // Queue by prefix and actor by any part: what an operator remembers of them.
  const entries = await ctx.auditLog.list({
    limit: AUDIT_PAGE,
    ...(Number.isSafeInteger(before) && before > 0 ? { before: { id: before } } : {}),
    ...(filter.queue === null ? {} : { queuePrefix: filter.queue }),
    ...(filter.actor === null ? {} : { actorContains: filter.actor }),
    ...(filter.action === null ? {} : { actions: [filter.action] }),
    ...(filter.source === null ? {} : { source: filter.source }),
    ...(since === null ? {} : { sinceUsec: since * 1000 }),
    ...(until === null ? {} : { untilUsec: until * 1000 }),
  });
  const shown = viewer.admin ? entries : entries.filter((entry) => readable.has(entry.queue));
  let next: string | null = null;
  if (entries.length === AUDIT_PAGE) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(filter)) if (value !== null) query.set(key, value);
    query.set('before', String(entries[entries.length - 1]!.id));
    next = `/console/audit?${query.toString()}`;
  }
  return renderPage(c, {
    title: 'Audit log',
    viewer,
    body: <AuditPage entries={shown} next={next} filter={filter} actions={AUDIT_ACTIONS} nowMs={Date.now()} />,
  });
}

/** `2026-03-01T09:00` (a datetime-local field, read as UTC) in epoch milliseconds, or null. */
function utcMinute(value: string | null): number | null {
  if (value === null || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return null;
  const ms = Date.parse(`${value}:00Z`);
  return Number.isNaN(ms) ? null : ms;
}

export async function signInPage(c: Context, ctx: ConsoleContext): Promise<Response> {
  // Already signed in (or a proxy signs every request in, or access control is off): nothing to do here.
  const viewer = await resolveViewer(c, ctx.accessControl, ctx.service.queues());
  const next = safeNext(c.req.query('next'));
  if (!isSignedOut(viewer)) return c.redirect(next, 303);
  const why =
    c.req.query('ended') !== undefined
      ? 'Your session ended: the token expired or is no longer accepted. Sign in again.'
      : c.req.query('out') !== undefined
        ? 'You signed out.'
        : next !== '/console'
          ? 'Sign in to see that page.'
          : null;
  return renderPage(c, { title: 'Sign in', viewer: null, body: <SignInPage message={why} next={next} /> });
}

/**
 * Checks a pasted token with the access control REST uses; when it is good
 * for this console, keeps it in the session cookie, which expires with it.
 */
export async function signIn(c: Context, ctx: ConsoleContext): Promise<Response> {
  if (isCrossSite(c)) return showError(c, null, 403, 'Refused', 'Sign in from the console itself.');
  const form = await c.req.parseBody();
  const pasted = typeof form.token === 'string' ? form.token.trim().replace(/^bearer\s+/i, '') : '';
  const next = safeNext(form.next);
  const refuse = (message: string) =>
    renderPage(c, { title: 'Sign in', viewer: null, body: <SignInPage message={message} next={next} /> }, 401);
  if (pasted === '' || /\s/.test(pasted)) return refuse('Paste one bearer token.');
  const viewer = await resolveViewer(c, ctx.accessControl, ctx.service.queues(), pasted);
  if (isSignedOut(viewer)) return refuse(viewer.message ?? 'The token was not accepted.');
  if (viewer.via === 'open') return c.redirect(next, 303);
  if (viewer.expiresAt !== null && viewer.expiresAt <= Date.now()) return refuse('The token has expired.');
  setSessionCookie(c, pasted, viewer.expiresAt);
  return c.redirect(next, 303);
}

export async function signOut(c: Context, ctx: ConsoleContext): Promise<Response> {
  if (isCrossSite(c)) return showError(c, null, 403, 'Refused', 'Sign out from the console itself.');
  const viewer = await resolveViewer(c, ctx.accessControl, ctx.service.queues());
  const form = await c.req.parseBody();
  if (!isSignedOut(viewer) && !csrfMatches(form._csrf, viewer.csrf)) {
    return showError(c, viewer, 403, 'Refused', 'The form was stale or did not come from this console.');
  }
  clearSessionCookie(c);
  return c.redirect('/console/sign-in?out=1', 303);
}
