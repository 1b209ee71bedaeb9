import type { Task } from '../core/task.js';
import type { TaskState } from '../core/task-store.js';

/**
 * A task's state from its row, by the rules of the one-timestamp model
 * (sql/0009): ETA passed = available (whether never leased or its lease
 * ran out); ETA ahead and leased before = leased (the ETA is the lease's
 * end); ETA ahead, never leased = delayed. `nowMs` is when the page was
 * made: the state is what the page shows, not a lease decision.
 */
export function taskStateOf(task: Pick<Task, 'etaUsec' | 'retryCount'>, nowMs: number): TaskState {
  if (task.etaUsec / 1000 <= nowMs) return 'available';
  return task.retryCount > 0 ? 'leased' : 'delayed';
}

/** What the time of a task in a state means, as the task list words it. */
export function etaMeaning(state: TaskState, retryCount: number): string {
  if (state === 'leased') return 'lease ends';
  if (state === 'delayed') return 'due';
  return retryCount > 0 ? 'lease ran out' : 'available since';
}
