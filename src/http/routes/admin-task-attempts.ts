import { LIMITS } from '../../core/limits.js';
import type { TaskAttempt } from '../../core/task-attempt.js';
import { jsonEtag } from '../etag.js';
import type { ResponseShape } from '../fields/check-fields.js';
import { invalidField } from '../http-error.js';
import { parseJsonObject } from '../json-body.js';
import { readBody } from '../read-body.js';
import type { RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';
import { flatShape, operationsOf } from './admin-operator.js';

const ATTEMPTS_SHAPE: ResponseShape = {
  type: 'object',
  properties: {
    kind: { type: 'value' },
    name: { type: 'value' },
    task: { type: 'value' },
    items: {
      type: 'array',
      items: flatShape('attempt', 'endedUsec', 'outcome', 'httpStatus', 'error', 'responseExcerpt', 'durationMs'),
    },
  },
};

/**
 * Operator extension: `GET /taskqueue/admin/v1/taskqueues/{queue}/tasks/{task}/attempts`,
 * a task's (or dead letter's) last attempts that did not succeed, newest
 * first (core/task-attempt.ts): `{"kind": "taskqueues#attempts", "items": [...]}`.
 * An unknown task has none (the history outlives neither its task nor its dead letter).
 */
export const ADMIN_TASK_ATTEMPTS: RestMethod = {
  action: 'queue.admin',
  shape: ATTEMPTS_SHAPE,
  async run(call) {
    const { c, params, queue, task } = call;
    const attempts: TaskAttempt[] = await operationsOf(call).attempts(task);
    const body = { kind: 'taskqueues#attempts', name: queue.name, task, items: attempts };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};

/**
 * Operator extension: `POST /taskqueue/admin/v1/taskqueues/{queue}/tasks/runNow`
 * with `{"names": [...]}` (at most 1000), or `{"filter": {"state":
 * "delayed"|"leased", "tag": "..."}}` for every task matching, makes them
 * due now (core/run-now.ts: a push task is delivered at once, a pull
 * task becomes available, a leased one's lease ending); `"dryRun": true`
 * with a filter only counts. Answers `{"name": ..., "ran": N}` (recorded in
 * the audit log as `run_now` by the core).
 */
export const ADMIN_RUN_NOW: RestMethod = {
  action: 'queue.admin',
  shape: flatShape('name', 'ran', 'dryRun'),
  async run(call) {
    const { c, params, queue } = call;
    const request = parseJsonObject(await readBody(c));
    for (const key of Object.keys(request))
      if (key !== 'names' && key !== 'filter' && key !== 'dryRun')
        throw invalidField(key, `Unknown field ${key}: send names, or a filter (and dryRun)`);
    const { names, filter, dryRun } = request;
    if ((names === undefined) === (filter === undefined))
      throw invalidField('names', 'send names or a filter, not both');
    let ran: number;
    if (names !== undefined) {
      if (!Array.isArray(names) || names.some((name) => typeof name !== 'string'))
        throw invalidField('names', 'names must be an array of task names');
      if (names.length > LIMITS.maxTasksPerDelete)
        throw invalidField('names', `at most ${LIMITS.maxTasksPerDelete} names; send a filter for more`);
      if (dryRun !== undefined) throw invalidField('dryRun', 'dryRun goes with a filter');
      ran = (await operationsOf(call).runNow({ names: names as string[] })).count;
    } else {
      if (typeof filter !== 'object' || filter === null || Array.isArray(filter))
        throw invalidField('filter', 'filter must be an object: {"state": "delayed"|"leased", "tag": "..."}');
      const f = filter as Record<string, unknown>;
      for (const key of Object.keys(f))
        if (key !== 'state' && key !== 'tag') throw invalidField(`filter.${key}`, `Unknown filter field ${key}`);
      if (f.state !== undefined && f.state !== 'delayed' && f.state !== 'leased')
        throw invalidField('filter.state', 'state must be "delayed" or "leased"');
      if (f.tag !== undefined && typeof f.tag !== 'string') throw invalidField('filter.tag', 'tag must be a string');
      if (dryRun !== undefined && typeof dryRun !== 'boolean')
        throw invalidField('dryRun', 'dryRun must be true or false');
      ran = (
        await operationsOf(call).runNow({
          filter: {
            ...(f.state === undefined ? {} : { state: f.state }),
            ...(f.tag === undefined ? {} : { tag: f.tag }),
          },
          ...(dryRun === true ? { dryRun: true } : {}),
        })
      ).count;
    }
    const body = { name: queue.name, ran, ...(dryRun === true ? { dryRun: true } : {}) };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};
