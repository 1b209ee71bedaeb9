import { QueueError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { Task } from '../../core/task.js';
import { checkIfMatch, taskEtag } from '../etag.js';
import { parseJsonObject } from '../json-body.js';
import { getLiveTask, tombstoneAsNotFound } from '../missing-task.js';
import { readBody } from '../read-body.js';
import { RESPONSE_SHAPES } from '../response-shapes.js';
import type { RestCall, RestMethod } from '../rest-handler.js';
import { parseUpdateBody, type UpdateMode } from '../task-body.js';
import { taskJson } from '../task-json.js';
import { writeJson } from '../write-json.js';

/**
 * Changes the lease of a task the caller holds to `newLeaseSeconds` from
 * now (0 releases it), and optionally its tag. The lease token is the
 * body's `leaseTimestamp`; it must equal the task's current lease, else 400
 * lease expired. Without it the token is the task's current lease, read
 * first, which must still run: a lease that has expired, or a task that was
 * never leased, still fails. Every check happens before the one UPDATE, so
 * a refused request changes nothing.
 */
async function updateTask(
  { c, query, params, project, queue, task: name }: RestCall,
  mode: UpdateMode,
): Promise<Response> {
  const newLeaseSeconds = query.requiredInteger('newLeaseSeconds', { min: 0, max: LIMITS.maxLeaseMs / 1000 });
  const update = parseUpdateBody(parseJsonObject(await readBody(c)), { queue: queue.name, project, task: name }, mode);
  const ifMatch = c.req.header('if-match');
  let current: Task | undefined;
  if (update.leaseToken === undefined || (ifMatch !== undefined && ifMatch.trim() !== '*')) {
    current = await getLiveTask(queue, name);
    checkIfMatch(ifMatch, taskEtag(current));
  }
  const leaseToken = update.leaseToken ?? (current as Task).etaUsec;
  if (current !== undefined && update.leaseToken === undefined && current.retryCount === 0) {
    throw new QueueError(
      'TASK_LEASE_EXPIRED',
      `task "${name}" is not leased; only a leased task's lease can be changed`,
      {
        queue: queue.name,
        task: name,
      },
    );
  }
  let task: Task;
  try {
    task = await queue.updateTask(
      { name, etaUsec: leaseToken },
      {
        lease: newLeaseSeconds,
        unit: 'seconds',
        ...(update.tag === undefined ? {} : { tag: update.tag }),
        ...(update.lastError === undefined ? {} : { lastError: update.lastError }),
      },
    );
  } catch (error) {
    throw tombstoneAsNotFound(error);
  }
  return writeJson(c, params, { body: taskJson(task, project, { withPayload: true }), etag: taskEtag(task) });
}

/**
 * tasks.update: `POST .../tasks/{task}?newLeaseSeconds=N` with a Task body.
 * Fields left out of the body stay as they are (the official client sends
 * just `{queueName}`), so it behaves as PATCH; PUT is the replacing form.
 * A task named `lease` cannot be updated this way (its path is the lease
 * method's); PATCH reaches it.
 */
export const UPDATE_TASK: RestMethod = updateMethod('merge');

/** tasks.patch: `PATCH .../tasks/{task}?newLeaseSeconds=N`: merge semantics; `tag: null` clears the tag. */
export const PATCH_TASK: RestMethod = updateMethod('merge');

/** `PUT .../tasks/{task}?newLeaseSeconds=N`: replace semantics; a tag left out is cleared. */
export const PUT_TASK: RestMethod = updateMethod('replace');

function updateMethod(mode: UpdateMode): RestMethod {
  return { action: 'task.update', shape: RESPONSE_SHAPES.task, run: (call) => updateTask(call, mode) };
}
