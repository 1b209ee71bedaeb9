import type { AccessDecision } from '../../auth/access-control.js';
import { tombstoneAsNotFound } from '../missing-task.js';
import { errorPart, type PartResponse } from './batch-response.js';
import { authorizeAll, NO_HEADERS, type CombinedCall } from './combined-call.js';

/** tasks.delete's answer: 200, no body. */
const DELETED: PartResponse = { status: 200, headers: [], body: '' };

/**
 * Runs the DELETEs of one queue: each is authorised, then all allowed names
 * go to the core in ONE `queue.deleteTask(names)` call: one statement
 * instead of one per request. A name that was not deleted (unknown, already
 * deleted, or named twice in the batch: the first one deletes it) is
 * answered 404 as the route answers it.
 */
export async function runDeleteGroup(
  calls: readonly CombinedCall[],
  authorize: (call: CombinedCall) => Promise<AccessDecision>,
): Promise<PartResponse[]> {
  const refusals = await authorizeAll(calls, authorize);
  const responses: Array<PartResponse | undefined> = refusals.map((refusal, i) =>
    refusal ? errorPart(refusal.error, calls[i]!.params.pretty, calls[i]!.headers) : undefined,
  );
  const names = [...new Set(calls.filter((_, i) => !refusals[i]).map((c) => c.name))];
  if (names.length === 0) return responses as PartResponse[];
  const queue = calls[0]!.queue;
  let deleted: Set<string>;
  try {
    const outcome = await queue.deleteTask(names);
    deleted = new Set(names.filter((_, i) => outcome[i]));
  } catch (error) {
    return calls.map((c, i) => responses[i] ?? errorPart(error, c.params.pretty, c.headers));
  }
  // The first call of a deleted name answers 200; the others, and names not deleted, answer as the route would.
  const missing: number[] = [];
  calls.forEach((call, i) => {
    if (responses[i]) return;
    if (deleted.delete(call.name))
      responses[i] =
        call.headers === NO_HEADERS ? DELETED : { status: 200, headers: Object.entries(call.headers), body: '' };
    else missing.push(i);
  });
  const errors = new Map<string, Promise<unknown>>();
  await Promise.all(
    missing.map(async (i) => {
      const call = calls[i]!;
      let error = errors.get(call.name);
      if (!error) {
        error = queue.missingTaskError(call.name).then(tombstoneAsNotFound, (failure: unknown) => failure);
        errors.set(call.name, error);
      }
      responses[i] = errorPart(await error, call.params.pretty, call.headers);
    }),
  );
  return responses as PartResponse[];
}
