import { encodeConsole } from './console-encoding.js';
import { Hono, type Context, type Next } from 'hono';
import { OPEN_ACCESS } from '../auth/access-control.js';
import { silentLogger } from '../core/logger.js';
import type { AppDeps, Readiness, ResolvedDeps } from './app-deps.js';
import { BATCH_DELETE_TASKS } from './batch/batch-delete.js';
import { BATCH_PATHS, batchHandler } from './batch/batch-handler.js';
import { writeError } from './error-response.js';
import { HttpError, quote } from './http-error.js';
import { methodOverride } from './method-override.js';
import { QueryParams } from './query-params.js';
import { tokenInUrl } from './rest-checks.js';
import { requestLog } from './request-log.js';
import { restHandler } from './rest-handler.js';
import { registerCloudTasksQueueRoutes } from './cloudtasks/queue-routes.js';
import { registerAdminRoutes } from './routes/admin-routes.js';
import { DELETE_TASK } from './routes/delete-task.js';
import { discovery, openApi } from './routes/discovery.js';
import { GET_QUEUE } from './routes/get-queue.js';
import { GET_TASK } from './routes/get-task.js';
import { health } from './routes/health.js';
import { INSERT_TASK } from './routes/insert-task.js';
import { LEASE_TASKS } from './routes/lease-tasks.js';
import { LIST_TASKS } from './routes/list-tasks.js';
import { metrics } from './routes/metrics.js';
import { readiness } from './routes/readiness.js';
import { PATCH_TASK, PUT_TASK, UPDATE_TASK } from './routes/update-task.js';

export type { AppDeps } from './app-deps.js';

/**
 * The queue paths: the discovery's canonical form, then the spec's short
 * form without the project (section 4), which means this service's project.
 */
const QUEUE_PATHS = [
  '/taskqueue/v1beta2/projects/:project/taskqueues/:taskqueue',
  '/taskqueue/v1beta2/projects/taskqueues/:taskqueue',
];

/**
 * The HTTP application: the eight methods of the TaskQueue v1beta2 REST API
 * over the service, plus PUT, `/healthz`, the discovery document and an
 * OpenAPI document. It never listens and never reads the environment:
 * `main.ts` does that, and tests call `app.request()` or serve it on a
 * loopback port.
 */
export function createApp(deps: AppDeps): Hono {
  const resolved: ResolvedDeps = {
    service: deps.service,
    accessControl: deps.accessControl ?? OPEN_ACCESS,
    publicUrl: deps.publicUrl,
    adminEmails: deps.adminEmails ? [...new Set(deps.adminEmails)] : undefined,
    shutdown: deps.shutdown,
    cloudTasksLocation: deps.cloudTasksLocation,
  };
  const app = new Hono();

  app.use(
    '*',
    requestLog({ logger: deps.logger ?? silentLogger, observer: deps.httpObserver, shutdown: deps.shutdown }),
  );
  app.get('/healthz', (c) => health(c, resolved));
  const ready = deps.readiness ?? (() => databaseAnswers(resolved));
  app.get('/readyz', (c) => readiness(c, ready));
  const metricsSource = deps.metrics;
  if (metricsSource) app.get('/metrics', (c) => metrics(c, resolved, metricsSource));
  app.get('/discovery/v1/apis/taskqueue/v1beta2/rest', (c) => discovery(c, resolved));
  app.get('/openapi.json', (c) => openApi(c, resolved));

  // The web console, when mounted (src/console): compressed, tagged, and 304 when a refresh finds nothing new.
  app.use('/console/*', encodeConsole);

  app.use('/taskqueue/*', methodOverride(app));
  // RFC 6750 section 2.3: a response to a request that carried its token in
  // the URL must not be cached by shared caches.
  // Most queries cannot name the token: those requests go straight on, with no await of their own.
  app.use('/taskqueue/*', (c, next) => (queryMayNameToken(c.req.url) ? privateWhenTokenInUrl(c, next) : next()));
  for (const queuePath of QUEUE_PATHS) {
    const tasks = `${queuePath}/tasks`;
    app.get(queuePath, restHandler(resolved, GET_QUEUE));
    app.get(tasks, restHandler(resolved, LIST_TASKS));
    app.post(tasks, restHandler(resolved, INSERT_TASK));
    // Registered before `tasks/:task`: POST .../tasks/lease is the lease method, never an update of a task named "lease".
    app.post(`${tasks}/lease`, restHandler(resolved, LEASE_TASKS));
    app.get(`${tasks}/:task`, restHandler(resolved, GET_TASK));
    app.post(`${tasks}/:task`, restHandler(resolved, UPDATE_TASK));
    app.patch(`${tasks}/:task`, restHandler(resolved, PATCH_TASK));
    app.put(`${tasks}/:task`, restHandler(resolved, PUT_TASK));
    app.delete(`${tasks}/:task`, restHandler(resolved, DELETE_TASK));
    // Extension (docs/rest-batch.md): delete up to 1000 tasks in one call.
    app.post(`${tasks}:batchDelete`, restHandler(resolved, BATCH_DELETE_TASKS));
    for (const path of [queuePath, tasks, `${tasks}/:task`, `${tasks}:batchDelete`]) {
      app.all(path, (c, next) => (mayBeShortForm(c.req.param('project')) ? next() : methodNotAllowed(c)));
    }
  }

  // Extension: the operator routes of `taskqueue ... --url` (pause, purge, dead letters, export...).
  registerAdminRoutes(app, resolved);

  // Cloud Tasks v2 (docs/cloud-tasks.md): its queue methods and locations, errors as google.rpc.Status.
  registerCloudTasksQueueRoutes(app, resolved);

  // Google's batch endpoint (the discovery's batchPath): each inner request runs through this app.
  const batch = batchHandler(app, resolved);
  for (const path of BATCH_PATHS) {
    app.post(path, batch);
    app.all(path, methodNotAllowed);
  }

  app.notFound((c) =>
    writeError(
      c,
      new HttpError(404, 'notFound', `Not Found: ${c.req.method} ${quote(new URL(c.req.url).pathname)}`),
      true,
    ),
  );
  app.onError((error, c) => writeError(c, error, true));
  return app;
}

/** The default readiness: the database answers. */
async function databaseAnswers(deps: ResolvedDeps): Promise<Readiness> {
  try {
    await deps.service.ping();
    return { ready: true };
  } catch {
    return { ready: false, reason: 'database', message: 'the database does not answer' };
  }
}

/**
 * Whether a URL's query can hold `oauth_token` at all: it must say so
 * plainly or carry a percent escape (`oauth%5Ftoken`). Most requests do
 * neither (a lease's `?numTasks=1&leaseSecs=300`), and skip parsing their
 * query a second time for this header.
 */
function queryMayNameToken(url: string): boolean {
  const question = url.indexOf('?');
  return question >= 0 && (url.includes('oauth_token', question) || url.includes('%', question));
}

/** Marks the answer `Cache-Control: private` when the query does carry `oauth_token`. */
async function privateWhenTokenInUrl(c: Context, next: Next): Promise<void> {
  await next();
  // Decided from the parsed query, as the credentials are read (the batch's combined calls decide it alike).
  if (tokenInUrl(QueryParams.fromUrl(c.req.url))) c.res.headers.set('cache-control', 'private');
}

/** A canonical path whose project is `taskqueues` may be the short form of a longer path: let the next route have it. */
function mayBeShortForm(project: string | undefined): boolean {
  return project === 'taskqueues';
}

function methodNotAllowed(c: Context): Promise<Response> {
  return writeError(c, new HttpError(405, 'httpMethodNotAllowed', `Method ${c.req.method} is not allowed here`), true);
}
