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
    const { names, leased } = parseIds(parseJsonObject(await readBody(c)));
    const outcome = leased ? await queue.deleteLeasedTasks(leased) : await queue.deleteTask(names);
    const body = { deleted: names.filter((_, i) => outcome[i]), notFound: names.filter((_, i) => !outcome[i]) };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};

/** The distinct names in the order given, and with lease tokens, each name once with its token. */
function parseIds(body: Record<string, unknown>): {
  names: string[];
  leased: { name: string; etaUsec: number }[] | null;
} {
  for (const field of Object.keys(body)) {
    if (field !== 'ids' && field !== 'leaseTimestamps') {
      throw invalidField(
        field,
        `Unknown field ${quote(field)}: a batchDelete body is {"ids": [task names], "leaseTimestamps": [optional lease tokens]}`,
      );
    }
  }
  const ids: unknown = body.ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > LIMITS.maxTasksPerDelete) {
    throw invalidField('ids', `ids must be an array of 1 to ${LIMITS.maxTasksPerDelete} task names`);
  }
  for (let i = 0; i < ids.length; i++) {
    const id: unknown = ids[i];
    if (typeof id !== 'string' || !TASK_NAME_PATTERN.test(id)) {
      throw invalidField('ids', `ids[${i}] is not a valid task name: it must match ${TASK_NAME_PATTERN.source}`);
    }
  }
  const stamps: unknown = body.leaseTimestamps;
  if (stamps === undefined) return { names: [...new Set(ids as string[])], leased: null };
  if (!Array.isArray(stamps) || stamps.length !== ids.length) {
    throw invalidField('leaseTimestamps', 'leaseTimestamps must be an array with one lease token per id');
  }
  const tokens = new Map<string, number>();
  const names: string[] = [];
  const leased: { name: string; etaUsec: number }[] = [];
  for (let i = 0; i < stamps.length; i++) {
    const etaUsec = leaseToken(stamps[i]);
    if (!Number.isSafeInteger(etaUsec) || etaUsec < 0) {
      throw invalidField(
        'leaseTimestamps',
        `leaseTimestamps[${i}] must be microseconds since the epoch, as a decimal string or an integer`,
      );
    }
    const name = ids[i] as string;
    const seen = tokens.get(name);
    if (seen === undefined) {
      tokens.set(name, etaUsec);
      names.push(name);
      leased.push({ name, etaUsec });
    } else if (seen !== etaUsec) {
      throw invalidField('leaseTimestamps', `task ${quote(name)} is given twice with different lease tokens`);
    }
  }
  return { names, leased };
}

/** A lease token as given: a decimal string (as tasks.lease answers it) or an integer; NaN otherwise. */
function leaseToken(stamp: unknown): number {
  if (typeof stamp === 'number') return stamp;
  if (typeof stamp !== 'string' || stamp.length === 0 || stamp.length > 16) return Number.NaN;
  for (let i = 0; i < stamp.length; i++) {
    const code = stamp.charCodeAt(i);
    if (code < 48 || code > 57) return Number.NaN;
  }
  return Number(stamp);
}
