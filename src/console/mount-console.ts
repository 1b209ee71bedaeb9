import { Hono, type Context } from 'hono';
import { OPEN_ACCESS } from '../auth/access-control.js';
import { DEFAULT_TRIAGE_THRESHOLDS } from '../core/triage-thresholds.js';
import { ACTIONS, runAction, type ConsoleAction } from './console-actions.js';
import { consoleAssets } from './console-assets.js';
import { runBulk } from './console-bulk.js';
import { runMatching } from './console-run-matching.js';
import type { ConsoleContext, ConsoleDeps } from './console-deps.js';
import { errorPage, showError } from './console-errors.js';
import { cronJobPage, runCronJob } from './cron-job-page.js';
import { cronPage } from './cron-page.js';
import { auditPage, queuesPage, queuesTable, signIn, signInPage, signOut, viewerOrSignIn } from './console-pages.js';
import { deadLetterPage, deadLettersMatching, deadLettersPage } from './dead-letter-routes.js';
import { findTask, queuePage, queueSeries, taskPage } from './queue-routes.js';
import { searchPage } from './search-routes.js';
import { CONSOLE_PATH } from './console-session.js';
import type { Viewer } from './console-viewer.js';
import { OverviewSampler } from './overview-sampler.js';

export type { ConsoleDeps } from './console-deps.js';

/** The mounted console: stop its sampler when the server closes. */
export interface MountedConsole {
  readonly sampler: OverviewSampler;
  close(): Promise<void>;
}

/**
 * Nothing inline may run or style: the one script and the one stylesheet
 * come from this server, and nothing may frame the console.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * Mounts the web console at /console on `app`: pages rendered on the server
 * (Hono JSX) from the service's core, a small client script for refreshing
 * and charts, sign-in with the bearer tokens REST accepts, and the
 * administrators' actions, each recorded in the audit log. Starts the
 * sampler that remembers the last hour of figures for the charts.
 */
export function mountConsole(app: Hono, deps: ConsoleDeps): MountedConsole {
  const sampler = new OverviewSampler({
    read: () => deps.service.overview(),
    ...(deps.sampleIntervalSeconds === undefined ? {} : { intervalSeconds: deps.sampleIntervalSeconds }),
    ...(deps.depthHistory === undefined ? {} : { history: deps.depthHistory }),
  });
  const ctx: ConsoleContext = {
    service: deps.service,
    accessControl: deps.accessControl ?? OPEN_ACCESS,
    auditLog: deps.auditLog,
    sampler,
    refreshSeconds: deps.refreshSeconds ?? 5,
    cronJobs: deps.cronJobs ?? null,
    cron: deps.cron ?? null,
    triage: deps.triage ?? DEFAULT_TRIAGE_THRESHOLDS,
  };
  const console = new Hono();

  console.use('*', async (c, next) => {
    await next();
    const headers = c.res.headers;
    headers.set('content-security-policy', CONTENT_SECURITY_POLICY);
    headers.set('x-content-type-options', 'nosniff');
    headers.set('x-frame-options', 'DENY');
    headers.set('referrer-policy', 'same-origin');
    if (!headers.has('cache-control')) headers.set('cache-control', 'no-store');
  });

  console.get('/assets/console.js', async (c) =>
    asset(c, (await consoleAssets()).js, 'text/javascript; charset=utf-8'),
  );
  console.get('/assets/console.css', async (c) => asset(c, (await consoleAssets()).css, 'text/css; charset=utf-8'));

  console.get('/sign-in', (c) => signInPage(c, ctx));
  console.post('/sign-in', (c) => signIn(c, ctx));
  console.post('/sign-out', (c) => signOut(c, ctx));

  const page =
    (handler: (c: Context, ctx: ConsoleContext, viewer: Viewer) => Promise<Response>) => async (c: Context) => {
      const viewer = await viewerOrSignIn(c, ctx);
      return viewer instanceof Response ? viewer : handler(c, ctx, viewer);
    };
  console.get('/', page(queuesPage));
  console.get('/queues-table', page(queuesTable));
  console.get('/audit', page(auditPage));
  console.get('/cron', page(cronPage));
  console.get('/cron/:job', page(cronJobPage));
  console.post('/cron/:job/run', (c) => runCronJob(c, ctx));
  console.get('/queues/:queue', page(queuePage));
  console.get('/queues/:queue/series.json', page(queueSeries));
  console.get('/queues/:queue/dead-letters', page(deadLettersPage));
  console.get('/queues/:queue/dead-letters/:name', page(deadLetterPage));
  console.post('/queues/:queue/dead-letters/matching', (c) => deadLettersMatching(c, ctx));
  console.get('/queues/:queue/tasks', page(findTask));
  console.get('/queues/:queue/search', page(searchPage));
  console.get('/queues/:queue/tasks/:task', page(taskPage));
  console.post('/queues/:queue/bulk', (c) => runBulk(c, ctx));
  console.post('/queues/:queue/run-matching', (c) => runMatching(c, ctx));
  for (const action of ACTIONS) {
    console.post(`/queues/:queue/${action}`, (c) => runAction(c, ctx, action as ConsoleAction));
  }

  console.all('*', (c) => showError(c, null, 404, 'Not found', 'There is no such page in the console.', CONSOLE_PATH));
  console.onError((error, c) => errorPage(c, error));

  // `/console/` is where many a hand-typed URL ends: the same page, under its one address.
  app.get(`${CONSOLE_PATH}/`, (c) => c.redirect(CONSOLE_PATH, 301));
  app.route(CONSOLE_PATH, console);
  sampler.start();
  return { sampler, close: () => sampler.stop() };
}

function asset(c: Context, body: string, type: string): Response {
  // Asset URLs carry a hash of the content (?v=), so a long cache is safe.
  return c.body(body, 200, { 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' });
}
