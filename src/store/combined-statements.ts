import { isQueueError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import type { Task } from '../core/task.js';
import type { LeaseResult, TaskDeleteParams, TaskInsertParams, TaskLeaseParams } from '../core/task-store.js';
import { deleteTasks } from './delete-tasks.js';
import { insertTasks } from './insert-tasks.js';
import { leaseShapeOf, leaseTasks, leaseTermsOf, type LeaseTerms } from './lease-tasks.js';
import type { StoreContext } from './store-context.js';

/**
 * How concurrent calls of one queue share a statement (see
 * statement-group.ts), and how each call gets its own share of the result
 * back: adds, leases and deletes. PgTaskStore submits to its groups; these
 * run a group's batch.
 */

/** Runs one query and turns its failure into a QueueError (PgTaskStore's guard). */
export type Guard = <T>(run: () => Promise<T>, queue: string | undefined) => Promise<T>;

const MAX_TASK_BYTES = LIMITS.maxTaskBytes;

/**
 * Tasks per combined add. The FIFO offsets of one statement (a microsecond
 * per task, see insert-tasks.ts) stay under the millisecond its ETA check
 * allows for them.
 */
export const MAX_COMBINED_ADD = 500;

/**
 * Adds of more tasks than this run on their own: they are batches already,
 * and waiting for a statement in flight would only delay them (measured
 * with 4 producers of 100: no gain from combining, within the noise).
 */
export const MAX_COMBINED_ADD_TASKS = 10;

/** One add's share of a combined add: its tasks, or the error it alone gets. */
export type InsertOutcome = { readonly tasks: Task[] } | { readonly error: unknown };

/**
 * Whether a combined add failed on a refusal one add alone may cause, which
 * the database answered (with a SQLSTATE, or no row for an ETA too far
 * ahead), so nothing was stored. A lost connection or a timeout leaves the
 * outcome unknown: such errors are never retried.
 */
export function refusedByDatabase(error: unknown): boolean {
  if (!isQueueError(error)) return false;
  if (error.code === 'INVALID_ETA') return true;
  if (error.code === 'TRANSIENT_ERROR' || error.code === 'DEADLINE_EXCEEDED') return false;
  const sqlState = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState);
}

/**
 * Concurrent small adds in one statement. Each add keeps its own
 * all-or-nothing outcome: when the combined statement fails on something
 * one add brought (a held or taken name, an ETA too far ahead, a storage
 * limit), the adds run again one statement each, so only the add at fault
 * fails.
 */
export async function insertCombined(
  ctx: StoreContext,
  guard: Guard,
  requests: readonly TaskInsertParams[],
): Promise<InsertOutcome[]> {
  const first = requests[0]!;
  if (requests.length === 1) return [await insertAlone(ctx, guard, first)];
  let stored: Task[];
  try {
    stored = await guard(
      () => insertTasks(ctx, { ...first, tasks: requests.flatMap((r) => r.tasks) }),
      first.queueName,
    );
  } catch (error) {
    // The database refused the statement and nothing was stored: find the
    // add at fault by running each alone. Any other failure (the database
    // unreachable, a timeout) is every add's.
    if (!refusedByDatabase(error)) throw error;
    return Promise.all(requests.map((r) => insertAlone(ctx, guard, r)));
  }
  let offset = 0;
  return requests.map((r) => ({ tasks: stored.slice(offset, (offset += r.tasks.length)) }));
}

async function insertAlone(ctx: StoreContext, guard: Guard, params: TaskInsertParams): Promise<InsertOutcome> {
  try {
    return { tasks: await guard(() => insertTasks(ctx, params), params.queueName) };
  } catch (error) {
    return { error };
  }
}

/**
 * Whether a lease may share a statement: not on a rate-limited queue (each
 * call must count as one call), nor when the payload budget could bind
 * (each caller has its own): only the shapes without either.
 */
export function combinableLease(params: TaskLeaseParams): boolean {
  const shape = leaseShapeOf(params);
  return !shape.rate && !shape.budgetBinds;
}

/**
 * The terms a combined lease adds up over its callers instead of sharing
 * (leaseCombined); every other term of the statement is shared, so it is
 * part of the key.
 */
const SUMMED_TERMS = ['maxTasks', 'payloadBudgetBytes'] as const satisfies readonly (keyof LeaseTerms)[];

/**
 * Which leases may share a statement: those of the same shape and the same
 * value for every term the statement binds but the summed ones. Made of
 * LeaseShape and LeaseTerms whole, so a term or a shape dimension added to
 * the statement is in the key without being named here.
 */
export function leaseCombineKey(params: TaskLeaseParams): string {
  const shared: Partial<Record<keyof LeaseTerms, unknown>> = { ...leaseTermsOf(params) };
  for (const term of SUMMED_TERMS) delete shared[term];
  return JSON.stringify([leaseShapeOf(params), shared]);
}

/**
 * Concurrent leases with the same terms in one statement, the result dealt
 * out oldest first. The paused flag goes to every caller; the dead-letter
 * count to the first only, so totals stay right.
 */
export async function leaseCombined(
  ctx: StoreContext,
  guard: Guard,
  requests: readonly TaskLeaseParams[],
): Promise<LeaseResult[]> {
  const first = requests[0]!;
  const maxTasks = requests.reduce((n, r) => n + r.maxTasks, 0);
  const result = await guard(
    () => leaseTasks(ctx, { ...first, maxTasks, payloadBudgetBytes: maxTasks * MAX_TASK_BYTES }),
    first.queueName,
  );
  let offset = 0;
  return requests.map((r, i) => ({
    tasks: result.tasks.slice(offset, (offset += r.maxTasks)),
    paused: result.paused,
    deadLettered: i === 0 ? result.deadLettered : 0,
  }));
}

/** Concurrent deletes of one queue in one statement; each caller gets the names it deleted. */
export async function deleteCombined(
  ctx: StoreContext,
  guard: Guard,
  requests: readonly TaskDeleteParams[],
): Promise<string[][]> {
  const first = requests[0]!;
  const names = [...new Set(requests.flatMap((r) => r.names))];
  // Callers decide a name's form by their clocks; should two disagree (a
  // name's hold ending between them), the name gets its tombstone row.
  const tracked = new Set<string>();
  const byForm = new Set<string>();
  for (const r of requests) {
    const held = new Set(r.heldByForm);
    for (const name of r.names) (held.has(name) ? byForm : tracked).add(name);
  }
  const heldByForm = [...byForm].filter((name) => !tracked.has(name));
  const deleted = new Set(await guard(() => deleteTasks(ctx, { ...first, names, heldByForm }), first.queueName));
  // A name two callers asked for counts as deleted for the first of them only.
  return requests.map((r) =>
    r.names.filter((name) => {
      if (!deleted.has(name)) return false;
      deleted.delete(name);
      return true;
    }),
  );
}
