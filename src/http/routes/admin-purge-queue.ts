import { jsonEtag } from '../etag.js';
import type { RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';
import { flatShape, operationsOf } from './admin-operator.js';

/**
 * Operator extension: `POST /taskqueue/admin/v1/taskqueues/{queue}/purge`
 * deletes every task of the queue (in batches; names tombstoned as by
 * deletes), recorded in the audit log (by the core); answers `{"name": ..., "purged": N}`.
 */
export const ADMIN_PURGE_QUEUE: RestMethod = {
  action: 'queue.admin',
  shape: flatShape('name', 'purged'),
  async run(call) {
    const { c, params, queue } = call;
    const body = { name: queue.name, purged: await operationsOf(call).purge() };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};
