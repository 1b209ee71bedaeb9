import type { AccessDecision } from '../../auth/access-control.js';
import { LIMITS } from '../../core/limits.js';
import type { Task, TaskOptions } from '../../core/task.js';
import { taskEtag } from '../etag.js';
import { applyFields } from '../fields/apply-fields.js';
import { parseJsonObject } from '../json-body.js';
import { parseInsertBody } from '../task-body.js';
import { taskJson } from '../task-json.js';
import { errorPart, sortedHeaders, type PartResponse } from './batch-response.js';
import { authorizeAll, type CombinedCall } from './combined-call.js';

const JSON_TYPE = 'application/json; charset=UTF-8';

/**
 * Runs the inserts of one queue: each is authorised and its body read (a
 * bad body is its own 400), then the tasks go to the core 100 at a time
 * (`queue.add(tasks)`, one statement each) instead of one statement per
 * request. `add` of a list is all or nothing, so when one fails (a name in
 * use, a name given twice, a full queue) its calls are retried one by one,
 * in order, and each gets the answer it would have had alone.
 */
export async function runInsertGroup(
  calls: readonly CombinedCall[],
  authorize: (call: CombinedCall) => Promise<AccessDecision>,
): Promise<PartResponse[]> {
  const refusals = await authorizeAll(calls, authorize);
  const responses: Array<PartResponse | undefined> = new Array(calls.length);
  const ready: Array<{ index: number; task: TaskOptions }> = [];
  refusals.forEach((refusal, i) => {
    const call = calls[i]!;
    if (refusal) {
      responses[i] = errorPart(refusal.error, call.params.pretty, call.headers);
      return;
    }
    try {
      ready.push({
        index: i,
        task: parseInsertBody(parseJsonObject(call.body), {
          queue: call.queue.name,
          project: call.project,
          mode: call.queue.config.mode,
        }),
      });
    } catch (error) {
      responses[i] = errorPart(error, call.params.pretty, call.headers);
    }
  });
  const chunks: Array<typeof ready> = [];
  for (let at = 0; at < ready.length; at += LIMITS.maxTasksPerAdd)
    chunks.push(ready.slice(at, at + LIMITS.maxTasksPerAdd));
  await Promise.all(
    chunks.map(async (chunk) => {
      const queue = calls[chunk[0]!.index]!.queue;
      try {
        const stored = await queue.add(chunk.map((c) => c.task));
        chunk.forEach((c, k) => (responses[c.index] = taskPart(calls[c.index]!, stored[k]!)));
      } catch {
        for (const c of chunk) {
          const call = calls[c.index]!;
          try {
            responses[c.index] = taskPart(call, await queue.add(c.task));
          } catch (error) {
            responses[c.index] = errorPart(error, call.params.pretty, call.headers);
          }
        }
      }
    }),
  );
  return responses as PartResponse[];
}

/** The stored task, as tasks.insert writes it (`writeJson`): `fields`, `prettyPrint`, its ETag. */
function taskPart(call: CombinedCall, task: Task): PartResponse {
  const json = taskJson(task, call.project, { withPayload: true });
  const body = call.params.fields ? applyFields(json, call.params.fields) : json;
  return {
    status: 200,
    headers: sortedHeaders({
      'content-type': JSON_TYPE,
      etag: taskEtag(task),
      vary: 'Accept-Encoding, User-Agent',
      ...call.headers,
    }),
    body: JSON.stringify(body, null, call.params.pretty ? 2 : undefined),
  };
}
