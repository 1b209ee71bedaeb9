import { sql } from 'kysely';
import type { QueueRef } from '../core/task-store.js';
import { table, type StoreContext } from './store-context.js';

/**
 * Pauses or resumes a queue: one column on its row (sql/0008), read by every
 * lease statement, so all processes on the database see it at their next
 * lease. Pausing a paused queue keeps the time the pause began.
 */
export async function setPaused(ctx: StoreContext, params: QueueRef & { readonly paused: boolean }): Promise<void> {
  await sql`/* set_paused */
    update ${table(ctx, 'queues')}
       set paused = ${params.paused},
           paused_at = case when ${params.paused} then coalesce(paused_at, now()) end
     where id = ${params.queueId}`.execute(ctx.db);
}

/** Whether the queue is paused, as stored. */
export async function isPaused(ctx: StoreContext, params: QueueRef): Promise<boolean> {
  const result = await sql<{ paused: boolean }>`/* is_paused */
    select paused from ${table(ctx, 'queues')} where id = ${params.queueId}`.execute(ctx.db);
  return result.rows[0]?.paused === true;
}
