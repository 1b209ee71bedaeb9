import { taskEtag } from '../etag.js';
import { getLiveTask } from '../missing-task.js';
import { RESPONSE_SHAPES } from '../response-shapes.js';
import type { RestMethod } from '../rest-handler.js';
import { taskJson } from '../task-json.js';
import { writeJson } from '../write-json.js';

/** tasks.get: `GET .../tasks/{task}`, payload included; 304 when `If-None-Match` holds its ETag. */
export const GET_TASK: RestMethod = {
  action: 'task.get',
  shape: RESPONSE_SHAPES.task,
  async run({ c, params, project, queue, task: name }) {
    const task = await getLiveTask(queue, name);
    return writeJson(c, params, { body: taskJson(task, project, { withPayload: true }), etag: taskEtag(task) });
  },
};
