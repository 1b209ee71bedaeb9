import { checkIfMatch, taskEtag } from '../etag.js';
import { getLiveTask, tombstoneAsNotFound } from '../missing-task.js';
import { RESPONSE_SHAPES } from '../response-shapes.js';
import type { RestMethod } from '../rest-handler.js';

/**
 * tasks.delete: `DELETE .../tasks/{task}`: 200 with an empty body (spec
 * section 7), whether the task was leased or not, its lease expired or
 * not. An unknown or already deleted name is 404 (Google-style; AppScale
 * answered 200 for anything). With `If-Match`, the task must still be the
 * version the client saw. That check is a read before the delete, not part
 * of it: a lease taken in between is not noticed (the core has no
 * conditional delete yet). Delete needs no lease anyway (spec section 3).
 */
export const DELETE_TASK: RestMethod = {
  action: 'task.delete',
  shape: RESPONSE_SHAPES.none,
  async run({ c, queue, task: name }) {
    const ifMatch = c.req.header('if-match');
    if (ifMatch !== undefined && ifMatch.trim() !== '*')
      checkIfMatch(ifMatch, taskEtag(await getLiveTask(queue, name)));
    if (!(await queue.deleteTask(name))) throw tombstoneAsNotFound(await queue.missingTaskError(name));
    return c.body(null, 200);
  },
};
