import { jsonEtag } from '../etag.js';
import { queueJson } from '../queue-json.js';
import { RESPONSE_SHAPES } from '../response-shapes.js';
import type { RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';

/**
 * taskqueues.get: `GET .../taskqueues/{taskqueue}[?getStats=true]`. The ACL
 * is included only for callers the AccessControl lets read it.
 */
export const GET_QUEUE: RestMethod = {
  action: 'queue.get',
  shape: RESPONSE_SHAPES.taskQueue,
  async run({ c, deps, query, params, queue, decision }) {
    const getStats = query.boolean('getStats') ?? false;
    const body = queueJson(queue.config, {
      adminEmails: decision.mayReadAcl ? (deps.adminEmails ?? deps.service.config.adminEmails) : null,
      stats: getStats ? await queue.fetchStatistics() : null,
    });
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};
