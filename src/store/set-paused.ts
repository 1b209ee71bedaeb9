import { sql } from 'kysely';
import type { SetPausedParams, QueueRef } from '../core/task-store.js';
import { auditedCte } from './audit-row.js';
import { table, type StoreContext } from './store-context.js';

/**
 * Pauses or resumes a queue: one column on its row (sql/0008), read by every
 * lease statement, so all processes on the database see it at their next
 * lease. Pausing a paused queue keeps the time the pause began. The audit
 * entry, when given, is written by the same statement.
 *
 * Two statement shapes rather than one with `CASE ... coalesce(paused_at,
 * now())`: Citus refuses `now()` inside CASE/COALESCE, and its generic plan of
 * that shape crashed the coordinator (docs/scaling.md). A pause of a paused
 * queue matches no row, so paused_at stays.
 */
export async function setPaused(ctx: StoreContext, params: SetPausedParams): Promise<void> {
  const audited = auditedCte(ctx, params.audit, null);
  if (params.paused) {
    await sql`/* set_paused_on */
      with changed as (
        update ${table(ctx, 'queues')} set paused = true, paused_at = now()
         where id = ${params.queueId} and not paused
        returning id
      )${audited}
      select count(*) from changed`.execute(ctx.db);
  } else {
    await sql`/* set_paused_off */
      with changed as (
        update ${table(ctx, 'queues')} set paused = false, paused_at = null
         where id = ${params.queueId}
        returning id
      )${audited}
      select count(*) from changed`.execute(ctx.db);
  }
}

/** Whether the queue is paused, as stored. */
export async function isPaused(ctx: StoreContext, params: QueueRef): Promise<boolean> {
  const result = await sql<{ paused: boolean }>`/* is_paused */
    select paused from ${table(ctx, 'queues')} where id = ${params.queueId}`.execute(ctx.db);
  return result.rows[0]?.paused === true;
}
