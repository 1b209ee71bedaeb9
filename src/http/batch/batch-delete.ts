import { LIMITS } from '../../core/limits.js';
import { TASK_NAME_PATTERN } from '../../core/task.js';
import type { ResponseShape } from '../fields/check-fields.js';
import { jsonEtag } from '../etag.js';
import { invalidField, quote } from '../http-error.js';
import { parseJsonObject } from '../json-body.js';
import { readBody } from '../read-body.js';
import type { RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';

const NAMES: ResponseShape = { type: 'array', items: { type: 'value' } };

/** What `fields` may select in a batchDelete answer. */
const BATCH_DELETE_SHAPE: ResponseShape = { type: 'object', properties: { deleted: NAMES, notFound: NAMES } };

/**
 * Extension: `POST .../tasks:batchDelete` with `{"ids": ["t1", "t2", ...]}`
 * (1 to 1000 task names) deletes them all in one statement and answers
 * `{"deleted": [...], "notFound": [...]}`: each distinct name once, in the
 * order given; a name that is unknown or already deleted is in `notFound`
 * (where `tasks.delete` would answer 404). Same ACL action as tasks.delete.
 * A name that is not a valid task name, or any other field, is 400 and
 * nothing is deleted. (The name follows Google's AIP-235 `:batchDelete`.)
 *
 * With `"leaseTimestamps": [...]` (one per id, the lease tokens the caller
 * holds, as tasks.lease answered them), a task is deleted only while it
 * still carries its token: a worker whose lease was taken over deletes
 * nothing, and the task is in `notFound`. The REST worker runner deletes so.
 */
export const BATCH_DELETE_TASKS: RestMethod = {
  action: 'task.delete',
  shape: BATCH_DELETE_SHAPE,
  async run({ c, params, queue }) {
    const { ids, tokens } = parseIds(parseJsonObject(await readBody(c)));
    const names = [...new Set(ids)];
    const outcome = tokens
      ? await queue.deleteLeasedTasks(names.map((name) => ({ name, etaUsec: tokens.get(name)! })))
      : await queue.deleteTask(names);
    const body = { deleted: names.filter((_, i) => outcome[i]), notFound: names.filter((_, i) => !outcome[i]) };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};

function parseIds(body: Record<string, unknown>): { ids: string[]; tokens: Map<string, number> | null } {
  for (const field of Object.keys(body)) {
    if (field !== 'ids' && field !== 'leaseTimestamps') {
      throw invalidField(field, `Unknown field ${quote(field)}: a batchDelete body is {"ids": [task names], "leaseTimestamps": [optional lease tokens]}`);
    }
  }
  const ids = body.ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > LIMITS.maxTasksPerDelete) {
    throw invalidField('ids', `ids must be an array of 1 to ${LIMITS.maxTasksPerDelete} task names`);
  }
  ids.forEach((id, i) => {
    if (typeof id !== 'string' || !TASK_NAME_PATTERN.test(id)) {
      throw invalidField('ids', `ids[${i}] is not a valid task name: it must match ${TASK_NAME_PATTERN.source}`);
    }
  });
  const stamps = body.leaseTimestamps;
  if (stamps === undefined) return { ids: ids as string[], tokens: null };
  if (!Array.isArray(stamps) || stamps.length !== ids.length) {
    throw invalidField('leaseTimestamps', 'leaseTimestamps must be an array with one lease token per id');
  }
  const tokens = new Map<string, number>();
  stamps.forEach((stamp: unknown, i) => {
    const usec = typeof stamp === 'string' && /^[0-9]{1,16}$/.test(stamp) ? Number(stamp) : typeof stamp === 'number' ? stamp : Number.NaN;
    if (!Number.isSafeInteger(usec) || usec < 0) {
      throw invalidField('leaseTimestamps', `leaseTimestamps[${i}] must be microseconds since the epoch, as a decimal string or an integer`);
    }
    const id = ids[i] as string;
    if (tokens.has(id) && tokens.get(id) !== usec) throw invalidField('leaseTimestamps', `task ${quote(id)} is given twice with different lease tokens`);
    tokens.set(id, usec);
  });
  return { ids: ids as string[], tokens };
}
