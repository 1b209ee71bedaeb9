import type { AuditIntent } from './audit-log.js';
import { QueueError } from './errors.js';
import { LIMITS } from './limits.js';
import type { QueueContext } from './queue-context.js';
import { TASK_NAME_PATTERN } from './task.js';
import type { RunNowResult, RunNowSelection } from './task-attempt.js';
import { validateTag } from './validate-tag.js';

/** Tasks made due per statement by a run-now of a filter. */
const RUN_NOW_BATCH = 1000;
/**
 * A filter's run-now stops after this many: each task is made due once
 * as it runs, but one leased again meanwhile (and so not due) would match
 * again, and a run-now must end.
 */
export const RUN_NOW_MAX = 1_000_000;

/**
 * "Run now" (queue-operations.ts): makes tasks due at once, the named ones
 * or all matching a filter (state `delayed` or `leased`, a tag). A push
 * task waiting out its backoff or not due yet is delivered at the
 * dispatcher's next turn (the dispatcher is woken); a pull task becomes
 * available, a leased one's lease ending as an administrator's release
 * ends it. Tasks in flight and tasks already due are left as they are.
 * One audit entry, counting and naming the tasks made due (a filter's
 * first AUDIT_NAMES_KEPT); for names it rides in the statement. A dead letter is put back by `redrive`, not here.
 */
export async function runTasksNow(
  ctx: QueueContext,
  selection: RunNowSelection,
  intent: (target: string | null) => AuditIntent,
): Promise<RunNowResult> {
  const queue = ctx.ref.queueName;
  const push = ctx.config.mode === 'push';
  const base = { ...ctx.ref, push, batchSize: RUN_NOW_BATCH, maxTasks: RUN_NOW_MAX };
  if ('names' in selection) {
    const names = selection.names;
    if (!Array.isArray(names) || names.some((name) => typeof name !== 'string' || !TASK_NAME_PATTERN.test(name))) {
      throw new QueueError('INVALID_TASK_NAME', 'runNow takes task names (letters, digits, _ and -; 1 to 500)', {
        queue,
      });
    }
    if (names.length > LIMITS.maxTasksPerDelete) {
      throw new QueueError(
        'TOO_MANY_TASKS',
        `at most ${LIMITS.maxTasksPerDelete} tasks may be named at once, got ${names.length}; run all matching a filter instead`,
        { queue },
      );
    }
    if (names.length === 0) return { count: 0, names: [] };
    const unique = [...new Set(names)];
    return ctx.store.runNow({
      ...base,
      selection: { names: unique },
      audit: intent(unique.length === 1 ? unique[0]! : null),
    });
  }
  const filter = selection.filter ?? {};
  if (filter.state !== undefined && filter.state !== 'leased' && filter.state !== 'delayed') {
    throw new QueueError(
      'INVALID_REQUEST',
      'runNow takes the state "delayed" or "leased" (due tasks are due already)',
      {
        queue,
        field: 'state',
      },
    );
  }
  const tag =
    filter.tag === undefined || filter.tag === null ? filter.tag : validateTag(filter.tag, { queue, field: 'tag' });
  const result = await ctx.store.runNow({
    ...base,
    selection: {
      filter: { ...(filter.state === undefined ? {} : { state: filter.state }), ...(tag === undefined ? {} : { tag }) },
      ...(selection.dryRun === true ? { dryRun: true } : {}),
    },
  });
  // A dry run changes nothing: nothing to record.
  if (selection.dryRun !== true)
    await ctx.store.recordAudit({ ...intent(null), count: result.count, names: result.names });
  return result;
}
