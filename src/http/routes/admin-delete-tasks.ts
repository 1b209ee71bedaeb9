import { jsonEtag } from '../etag.js';
import { invalidField } from '../http-error.js';
import { parseJsonObject } from '../json-body.js';
import { readBody } from '../read-body.js';
import type { RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';
import { flatShape, operationsOf } from './admin-operator.js';

/**
 * Operator extension: `POST /taskqueue/admin/v1/taskqueues/{queue}/tasks/delete`
 * with `{"names": [...]}` (up to 1000) deletes those tasks whoever holds
 * them, recorded in the audit log by the core (the consumer's
 * `tasks.delete` of v1beta2 is not an operator action and is not);
 * answers `{"name": ..., "deleted": [...], "notFound": [...]}`.
 */
export const ADMIN_DELETE_TASKS: RestMethod = {
  action: 'queue.admin',
  shape: flatShape('name', 'deleted', 'notFound'),
  async run(call) {
    const { c, params, queue } = call;
    const request = parseJsonObject(await readBody(c));
    for (const key of Object.keys(request))
      if (key !== 'names') throw invalidField(key, `Unknown field ${key}: only names may be sent`);
    const names = request.names;
    if (!Array.isArray(names) || names.length === 0 || names.some((name) => typeof name !== 'string')) {
      throw invalidField('names', 'names must be a non-empty array of task names');
    }
    const outcome = await operationsOf(call).deleteTasks(names as string[]);
    const body = {
      name: queue.name,
      deleted: names.filter((_, i) => outcome[i]),
      notFound: names.filter((_, i) => !outcome[i]),
    };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};

/**
 * Operator extension: `POST /taskqueue/admin/v1/taskqueues/{queue}/tasks/{task}/release`
 * ends the task's lease whoever holds it (recorded in the audit log by the
 * core); answers `{"name": ..., "task": ..., "released": true|false}`
 * (false: it was not leased). 404 when the task is not live.
 */
export const ADMIN_RELEASE_LEASE: RestMethod = {
  action: 'queue.admin',
  shape: flatShape('name', 'task', 'released'),
  async run(call) {
    const { c, params, queue, task } = call;
    const { released } = await operationsOf(call).releaseLease(task);
    const body = { name: queue.name, task, released };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};
