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
