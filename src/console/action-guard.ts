import type { Context } from 'hono';
import type { QueueConfig } from '../core/queue-config.js';
import type { ConsoleContext } from './console-deps.js';
import { showError } from './console-errors.js';
import { csrfMatches, isCrossSite } from './console-session.js';
import { isSignedOut, resolveViewer, type Viewer } from './console-viewer.js';

/** An action request that passed the guard: who asks, what the form says, on which queue. */
export interface GuardedAction {
  readonly viewer: Viewer;
  /** The form; a field sent more than once (bulk selections) is an array. */
  readonly form: Record<string, string | File | (string | File)[]>;
  readonly config: QueueConfig;
  /** The queue's page. */
  readonly back: string;
}

/** An administrator's form that passed the guard: who asks and what the form says. */
export interface GuardedForm {
  readonly viewer: Viewer;
  /** The form; a field sent more than once (bulk selections) is an array. */
  readonly form: Record<string, string | File | (string | File)[]>;
}

/**
 * The checks every administrator's form passes before anything happens:
 * refused are requests a browser marks cross-site, callers not signed in, a
 * missing or wrong CSRF token, and callers who are not administrators
 * (`what` finishes "Only administrators may ...").
 */
export async function guardAdminForm(c: Context, ctx: ConsoleContext, what: string): Promise<GuardedForm | Response> {
  if (isCrossSite(c)) return showError(c, null, 403, 'Refused', 'Actions must come from the console itself.');
  const viewer = await resolveViewer(c, ctx.accessControl, ctx.service.queues());
  if (isSignedOut(viewer))
    return showError(c, null, 401, 'Signed out', 'Sign in again to do that.', '/console/sign-in');
  const form = await c.req.parseBody({ all: true });
  if (!csrfMatches(form._csrf, viewer.csrf)) {
    return showError(
      c,
      viewer,
      403,
      'Refused',
      'The form was stale or did not come from this console. Reload the page and try again.',
    );
  }
  if (!viewer.admin) return showError(c, viewer, 403, 'Refused', `Only administrators may ${what}.`);
  return { viewer, form };
}

/** guardAdminForm, then the queue of the route, which must exist. */
export async function guardAction(c: Context, ctx: ConsoleContext): Promise<GuardedAction | Response> {
  const guarded = await guardAdminForm(c, ctx, 'act on queues');
  if (guarded instanceof Response) return guarded;
  const name = c.req.param('queue') ?? '';
  const config = ctx.service.queues().find((queue) => queue.name === name);
  if (!config) return showError(c, guarded.viewer, 404, 'No such queue', `There is no queue "${name}".`, '/console');
  return { ...guarded, config, back: `/console/queues/${encodeURIComponent(name)}` };
}
