import { sql } from 'kysely';
import type { QueueRef, TagFilter } from '../core/task-store.js';
import { table, type StoreContext } from './store-context.js';

/**
 * Whether a lease with this filter would find a task now: one probe of the
 * lease index, the same condition the lease statement picks by (for "group
 * by the oldest task's tag", any leasable task will do). It writes nothing
 * and counts no lease call.
 */
export async function hasLeasableTasks(
  ctx: StoreContext,
  params: QueueRef & { readonly filter: TagFilter },
): Promise<boolean> {
  const byTag = params.filter.kind === 'tag' ? sql`and tag = ${params.filter.tag}` : sql``;
  const result = await sql<{ found: boolean }>`/* has_leasable_tasks */
    select exists (
      select 1 from ${table(ctx, 'tasks')}
       where queue_id = ${params.queueId} and eta <= now() ${byTag}
    ) as found`.execute(ctx.db);
  return result.rows[0]?.found === true;
}
