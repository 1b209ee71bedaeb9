import { taskEtag } from '../etag.js';
import { parseJsonObject } from '../json-body.js';
import { readBody } from '../read-body.js';
import { RESPONSE_SHAPES } from '../response-shapes.js';
import type { RestMethod } from '../rest-handler.js';
import { parseInsertBody } from '../task-body.js';
import { taskJson } from '../task-json.js';
import { writeJson } from '../write-json.js';

/**
 * tasks.insert: `POST .../tasks` with a Task body; answers the stored task
 * (its generated name, enqueue time and first lease time included). A name
 * in use, or deleted within the tombstone period, is 409.
 */
export const INSERT_TASK: RestMethod = {
  action: 'task.insert',
  shape: RESPONSE_SHAPES.task,
  async run({ c, params, project, queue }) {
    const body = parseJsonObject(await readBody(c));
    const task = await queue.add(parseInsertBody(body, { queue: queue.name, project, mode: queue.config.mode }));
    return writeJson(c, params, { body: taskJson(task, project, { withPayload: true }), etag: taskEtag(task) });
  },
};
