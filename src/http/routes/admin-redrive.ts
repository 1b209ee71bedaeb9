import { jsonEtag } from '../etag.js';
import { invalidField } from '../http-error.js';
import { parseJsonObject } from '../json-body.js';
import { readBody } from '../read-body.js';
import type { RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';
import { flatShape, operationsOf } from './admin-operator.js';

/**
 * Operator extension: `POST /taskqueue/admin/v1/taskqueues/{queue}/deadLetters/redrive`
 * with `{"names": [...]}` (or an empty body: every dead letter of the
 * queue) puts dead letters back as new tasks under their names; answers
 * `{"name": ..., "redriven": N}` (recorded in the audit log by the core). Names with no dead letter are ignored.
 */
export const ADMIN_REDRIVE: RestMethod = {
  action: 'queue.admin',
  shape: flatShape('name', 'redriven'),
  async run(call) {
    const { c, params, queue } = call;
    const request = parseJsonObject(await readBody(c));
    for (const key of Object.keys(request))
      if (key !== 'names') throw invalidField(key, `Unknown field ${key}: only names may be sent`);
    const names = request.names;
    if (names !== undefined && (!Array.isArray(names) || names.some((name) => typeof name !== 'string'))) {
      throw invalidField('names', 'names must be an array of task names');
    }
    const body = { name: queue.name, redriven: await operationsOf(call).redrive(names as string[] | undefined) };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};
