import { jsonEtag } from '../etag.js';
import type { RestCall, RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';
import { flatShape, operationsOf } from './admin-operator.js';

const SHAPE = flatShape('name', 'paused');

/**
 * Operator extensions: `POST /taskqueue/admin/v1/taskqueues/{queue}/pause`
 * and `.../resume`. The state lives in the database, so every server
 * sharing it sees it at once. Recorded in the audit log (by the core). Answers `{"name": ..., "paused": ...}`.
 */
export const ADMIN_PAUSE_QUEUE: RestMethod = {
  action: 'queue.admin',
  shape: SHAPE,
  run: (call) => setPaused(call, true),
};
export const ADMIN_RESUME_QUEUE: RestMethod = {
  action: 'queue.admin',
  shape: SHAPE,
  run: (call) => setPaused(call, false),
};

async function setPaused(call: RestCall, paused: boolean): Promise<Response> {
  const { c, params, queue } = call;
  const operations = operationsOf(call);
  await (paused ? operations.pause() : operations.resume());
  const body = { name: queue.name, paused };
  return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
}
