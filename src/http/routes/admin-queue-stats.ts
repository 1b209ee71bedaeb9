import { QueueError } from '../../core/errors.js';
import { jsonEtag } from '../etag.js';
import type { RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';
import { QUEUE_OVERVIEW_SHAPE } from './admin-operator.js';

/**
 * Operator extension: `GET /taskqueue/admin/v1/taskqueues/{queue}`, the
 * queue's overview (state, tasks by state, oldest available age, leases,
 * dead letters, storage, limits) for `taskqueue stats --url`.
 */
export const ADMIN_QUEUE_STATS: RestMethod = {
  action: 'queue.admin',
  shape: QUEUE_OVERVIEW_SHAPE,
  async run({ c, deps, params, queue }) {
    const [body] = await deps.service.overview([queue.name]);
    if (!body) throw new QueueError('UNKNOWN_QUEUE', `Queue "${queue.name}" is not defined`, { queue: queue.name });
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};
