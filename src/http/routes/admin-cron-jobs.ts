import type { Context, Handler } from 'hono';
import { CRON_HISTORY_MAX } from '../../core/cron/cron-history.js';
import type { CronJobStatus } from '../../core/cron/cron-service.js';
import type { ResolvedDeps } from '../app-deps.js';
import { parseCommonParams, prettyForErrors } from '../common-params.js';
import { writeError } from '../error-response.js';
import { jsonEtag } from '../etag.js';
import type { ResponseShape } from '../fields/check-fields.js';
import { QueryParams } from '../query-params.js';
import { requestCredentials } from '../request-credentials.js';
import { noteCaller } from '../request-notes.js';
import { writeJson } from '../write-json.js';
import { flatShape } from './admin-operator.js';

/** Where the cron operator routes live, beside the queues' (ADMIN_QUEUES_PATH). */
export const ADMIN_CRON_PATH = '/taskqueue/admin/v1/cronJobs';

/** A job as the routes send it: its record without the stored definition (the same keys as `cron list --json`). */
export type CronJobJson = Omit<CronJobStatus, 'job'>;

const JOB_SHAPE = flatShape(
  'name',
  'schedule',
  'timezone',
  'url',
  'queue',
  'description',
  'lastInstant',
  'anchoredAt',
  'lastFiredAt',
  'lastTask',
  'lastOutcome',
  'lastError',
  'retiredAt',
  'next',
);
const LIST_SHAPE: ResponseShape = {
  type: 'object',
  properties: { kind: { type: 'value' }, items: { type: 'array', items: JOB_SHAPE } },
};
const FIRING_SHAPE = flatShape('job', 'queue', 'instant', 'task', 'outcome', 'error');
const HISTORY_SHAPE: ResponseShape = {
  type: 'object',
  properties: {
    kind: { type: 'value' },
    items: {
      type: 'array',
      items: flatShape('task', 'instant', 'run', 'outcome', 'attempts', 'lastError', 'lastStatus', 'at'),
    },
  },
};

/**
 * Operator extension: `GET /taskqueue/admin/v1/cronJobs` (every job the
 * servers recorded, as `cron list`) and `POST
 * /taskqueue/admin/v1/cronJobs/{job}/run` (fire it now, once, as `cron
 * run`; audited as the caller), so the cron commands reach a running
 * server (`--url`, or the server holding the embedded data directory).
 * Project administrators only (`queue.admin`, asked with no queue).
 */
export function adminListCronJobs(deps: ResolvedDeps): Handler {
  return (c) =>
    asAdmin(c, deps, LIST_SHAPE, async () => {
      const items: CronJobJson[] = (await deps.service.cronJobs()).map(({ job: _definition, ...shown }) => shown);
      return { kind: 'taskqueues#cronJobs', items };
    });
}

export function adminRunCronJob(deps: ResolvedDeps): Handler {
  return (c) =>
    asAdmin(c, deps, FIRING_SHAPE, async (email) => {
      const firing = await deps.service.runCronJob(c.req.param('job') ?? '', {
        actor: email ?? 'anonymous',
        source: 'rest',
      });
      return { ...firing, instant: firing.instant.toISOString() };
    });
}

/**
 * `GET /taskqueue/admin/v1/cronJobs/{job}/firings[?limit=N]`: the job's
 * latest firings (1 to 50, default 20), newest first, each with its
 * outcome (pending, retrying, delivered, failed), as `cron history`.
 */
export function adminCronHistory(deps: ResolvedDeps): Handler {
  return (c) =>
    asAdmin(c, deps, HISTORY_SHAPE, async () => {
      const limit = QueryParams.fromUrl(c.req.url).integer('limit', { min: 1, max: CRON_HISTORY_MAX }) ?? 20;
      const entries = await deps.service.cronHistory(c.req.param('job') ?? '', limit);
      const items = entries.map((entry) => ({
        ...entry,
        instant: entry.instant.toISOString(),
        at: entry.at.toISOString(),
      }));
      return { kind: 'taskqueues#cronFirings', items };
    });
}

async function asAdmin(
  c: Context,
  deps: ResolvedDeps,
  shape: ResponseShape,
  answer: (email: string | undefined) => Promise<object>,
): Promise<Response> {
  let query: QueryParams | undefined;
  try {
    query = QueryParams.fromUrl(c.req.url);
    const params = parseCommonParams(query, shape);
    const decision = await deps.accessControl.check(requestCredentials(c, query), null, 'queue.admin');
    noteCaller(c, decision.principal?.email);
    const body = await answer(decision.principal?.email);
    return await writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  } catch (error) {
    return writeError(c, error, prettyForErrors(query));
  }
}
