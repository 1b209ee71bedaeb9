import type { Task } from '../core/task.js';

/**
 * Where a push task stands, as an operator asks it: due and waiting for a
 * token or a free slot (`waiting`), being delivered (`in flight`), back
 * after a failed attempt until its backoff ends (`retrying`), or not due
 * yet and never tried (`scheduled`).
 */
export type PushTaskState = 'waiting' | 'in flight' | 'retrying' | 'scheduled';

/**
 * A push task's state from its row (sql/0012): in flight while a claim
 * holds (the database says so, with its own now()); else by ETA and
 * attempts, like a pull task. A claim that ran out (its dispatcher died)
 * makes the task due again: `waiting`. `nowMs` is when the page was made.
 */
export function pushTaskStateOf(task: Pick<Task, 'etaUsec' | 'retryCount' | 'delivery'>, nowMs: number): PushTaskState {
  if (task.delivery?.inFlight === true) return 'in flight';
  if (task.etaUsec / 1000 <= nowMs) return 'waiting';
  return task.retryCount > 0 ? 'retrying' : 'scheduled';
}

/** What a push task's time (its ETA) means in a state, as the console words it. */
export function pushEtaMeaning(state: PushTaskState): string {
  if (state === 'in flight') return 'claim ends';
  if (state === 'waiting') return 'due since';
  if (state === 'retrying') return 'next attempt';
  return 'first attempt';
}

/** The CSS class of a state's badge (`state-in-flight`). */
export function pushStateClass(state: PushTaskState): string {
  return `state-${state.replace(' ', '-')}`;
}
