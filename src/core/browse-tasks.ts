import { QueueError } from './errors.js';
import type { QueueContext } from './queue-context.js';
import { requireIntegerIn } from './require-integer.js';
import type { Task } from './task.js';
import type { TaskState } from './task-store.js';
import { validateTag } from './validate-tag.js';

/** Options of `browseTasks`: `listTasks` with filters, for operators. */
export interface BrowseOptions {
  /** At most this many tasks (1 to 1000, default 100). */
  readonly limit?: number;
  /** Continue after this task (the last of the previous page). */
  readonly after?: Pick<Task, 'name' | 'etaUsec'>;
  /** Only tasks in this state. */
  readonly state?: TaskState;
  /** Only tasks with this tag; null = only untagged tasks. */
  readonly tag?: string | null;
  /** Leave payloads out. */
  readonly withoutPayload?: boolean;
}

/**
 * Live tasks in ETA order, a page at a time, optionally only those in one
 * state (available, leased, delayed) and/or with one tag (null = untagged).
 * The REST list (TaskQueue.listTasks) and the operators' browse share it.
 */
export async function browseTasks(ctx: QueueContext, options: BrowseOptions = {}): Promise<Task[]> {
  const queue = ctx.ref.queueName;
  const limit = requireIntegerIn(options.limit ?? 100, 'limit', 1, 1000, queue);
  if (options.after && (!Number.isSafeInteger(options.after.etaUsec) || typeof options.after.name !== 'string')) {
    throw new QueueError('INVALID_REQUEST', 'after must be a task (integer etaUsec and a name)', {
      queue,
      field: 'after',
    });
  }
  const state = options.state;
  if (state !== undefined && state !== 'available' && state !== 'leased' && state !== 'delayed') {
    throw new QueueError('INVALID_REQUEST', `state must be available, leased or delayed, got "${String(state)}"`, {
      queue,
      field: 'state',
    });
  }
  const tag = options.tag === undefined ? undefined : validateTag(options.tag, { queue, field: 'tag' });
  return ctx.store.listTasks({
    ...ctx.ref,
    limit,
    ...(options.after ? { after: { etaUsec: options.after.etaUsec, name: options.after.name } } : {}),
    withoutPayload: options.withoutPayload ?? false,
    ...(state === undefined ? {} : { state }),
    ...(tag === undefined ? {} : { tag }),
  });
}
