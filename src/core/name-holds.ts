import type { CallerTransaction } from './caller-transaction.js';
import { QueueError } from './errors.js';
import { isHeldByForm } from './generated-name.js';
import type { QueueContext } from './queue-context.js';
import { TASK_NAME_PATTERN } from './task.js';

/**
 * Whether `name` is held by its form now (see generated-name.ts). Node's
 * clock (the context's), as the name's own time was written by it.
 */
export function heldByForm(ctx: QueueContext, name: string): boolean {
  return isHeldByForm(name, ctx.now(), ctx.tombstoneRetentionMs);
}

/**
 * The error that explains why a name is not live: TOMBSTONED_TASK or
 * UNKNOWN_TASK. A name held by its form that is not live counts as
 * deleted without asking the store: its delete wrote no tombstone row.
 * (The service cannot tell whether such a name was ever used in this
 * queue; it can only have come from a task of the service, so "deleted"
 * is the likely truth, and either way the name cannot be added.)
 */
export async function missingTaskError(ctx: QueueContext, name: string): Promise<QueueError> {
  const details = { queue: ctx.ref.queueName, task: name };
  if (TASK_NAME_PATTERN.test(name) && (heldByForm(ctx, name) || (await ctx.store.isTombstoned({ ...ctx.ref, name })))) {
    return new QueueError('TOMBSTONED_TASK', `task "${name}" has been deleted`, details);
  }
  return new QueueError('UNKNOWN_TASK', `task "${name}" does not exist in queue "${ctx.ref.queueName}"`, details);
}

/**
 * The refusal of an add that gave names held by their form: whichever of
 * them is live already exists (as the insert would have said); otherwise
 * the first was deleted. One lookup, and only for such adds.
 */
export async function heldNameError(
  ctx: QueueContext,
  names: readonly string[],
  transaction: CallerTransaction | undefined,
): Promise<QueueError> {
  const queue = ctx.ref.queueName;
  const live = await ctx.store.liveTaskNames({ ...ctx.ref, names, ...(transaction === undefined ? {} : { transaction }) });
  const name = live[0];
  if (name !== undefined) {
    return new QueueError('TASK_ALREADY_EXISTS', `task "${name}" already exists`, { queue, task: name });
  }
  const first = names[0]!;
  return new QueueError('TOMBSTONED_TASK', `task "${first}" was deleted recently; its name is held and cannot be reused yet`, {
    queue,
    task: first,
  });
}
