import { sql } from 'kysely';
import type { SetPausedParams, QueueRef } from '../core/task-store.js';
import { auditedCte } from './audit-row.js';
import { table, type StoreContext } from './store-context.js';

/**
 * Pauses or resumes a queue: one column on its row (sql/0008), read by every
 * lease statement, so all processes on the database see it at their next
 * lease. Pausing a paused queue keeps the time the pause began. The audit
 * entry, when given, is written by the same statement.
 */
export async function setPaused(ctx: StoreContext, params: SetPausedParams): Promise<void> {
  await sql`/* set_paused */
    with changed as (
      update ${table(ctx, 'queues')}
         set paused = ${params.paused},
             paused_at = case when ${params.paused} then coalesce(paused_at, now()) end
       where id = ${params.queueId}
      returning id
    )${auditedCte(ctx, params.audit, null)}
    select count(*) from changed`.execute(ctx.db);
}

/** Whether the queue is paused, as stored. */
export async function isPaused(ctx: StoreContext, params: QueueRef): Promise<boolean> {
  const result = await sql<{ paused: boolean }>`/* is_paused */
    select paused from ${table(ctx, 'queues')} where id = ${params.queueId}`.execute(ctx.db);
  return result.rows[0]?.paused === true;
}
