import { jsonEtag } from '../etag.js';
import type { RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';

/**
 * Operator extension: `POST /taskqueue/admin/v1/taskqueues/{queue}/purge`
 * deletes every task of the queue (in batches; names tombstoned as by
 * deletes) and answers `{"name": ..., "purged": N}`.
 */
export const ADMIN_PURGE_QUEUE: RestMethod = {
  action: 'queue.admin',
  shape: null,
  async run({ c, params, queue }) {
    const body = { name: queue.name, purged: await queue.purge() };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};
