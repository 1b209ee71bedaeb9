import { jsonEtag } from '../etag.js';
import type { RestMethod } from '../rest-handler.js';
import { recordAudit } from './admin-audit.js';
import { writeJson } from '../write-json.js';

/**
 * Operator extension: `POST /taskqueue/admin/v1/taskqueues/{queue}/purge`
 * deletes every task of the queue (in batches; names tombstoned as by
 * deletes), records it in the audit log and answers `{"name": ..., "purged": N}`.
 */
export const ADMIN_PURGE_QUEUE: RestMethod = {
  action: 'queue.admin',
  shape: null,
  async run(call) {
    const { c, params, queue } = call;
    const body = { name: queue.name, purged: await queue.purge() };
    await recordAudit(call, 'purge', body.purged);
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};
