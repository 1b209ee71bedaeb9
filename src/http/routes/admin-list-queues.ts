import type { Handler } from 'hono';
import type { ResolvedDeps } from '../app-deps.js';
import { parseCommonParams, prettyForErrors } from '../common-params.js';
import { writeError } from '../error-response.js';
import { jsonEtag } from '../etag.js';
import type { ResponseShape } from '../fields/check-fields.js';
import { QueryParams } from '../query-params.js';
import { requestCredentials } from '../request-credentials.js';
import { noteCaller } from '../request-notes.js';
import { writeJson } from '../write-json.js';
import { QUEUE_OVERVIEW_SHAPE } from './admin-operator.js';

const SHAPE: ResponseShape = {
  type: 'object',
  properties: { kind: { type: 'value' }, items: { type: 'array', items: QUEUE_OVERVIEW_SHAPE } },
};

/**
 * Operator extension: `GET /taskqueue/admin/v1/taskqueues`, every
 * configured queue at a glance (TaskQueueService.overview: one query), for
 * `taskqueue queues --url`. Project administrators only (`queue.admin`,
 * asked with no queue, as for a queue that does not exist).
 */
export function adminListQueues(deps: ResolvedDeps): Handler {
  return async (c) => {
    let query: QueryParams | undefined;
    try {
      query = QueryParams.fromUrl(c.req.url);
      const params = parseCommonParams(query, SHAPE);
      const decision = await deps.accessControl.check(requestCredentials(c, query), null, 'queue.admin');
      noteCaller(c, decision.principal?.email);
      const items = await deps.service.overview();
      const body = { kind: 'taskqueues#queueOverviews', items };
      return await writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
    } catch (error) {
      return writeError(c, error, prettyForErrors(query));
    }
  };
}
