import { jsonEtag } from '../etag.js';
import type { RestCall, RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';

/**
 * Operator extensions: `POST /taskqueue/admin/v1/taskqueues/{queue}/pause`
 * and `.../resume`. The state lives in the database, so every server
 * sharing it sees it at once. Answers `{"name": ..., "paused": ...}`.
 */
export const ADMIN_PAUSE_QUEUE: RestMethod = { action: 'queue.admin', shape: null, run: (call) => setPaused(call, true) };
export const ADMIN_RESUME_QUEUE: RestMethod = { action: 'queue.admin', shape: null, run: (call) => setPaused(call, false) };

async function setPaused({ c, params, queue }: RestCall, paused: boolean): Promise<Response> {
  await (paused ? queue.pause() : queue.resume());
  const body = { name: queue.name, paused };
  return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
}
