import { sql } from 'kysely';
import type { QueueRef } from '../core/task-store.js';
import { table, type StoreContext } from './store-context.js';
import { tombstoneUpsert } from './tombstone-upsert.js';

/**
 * Deletes every task of a queue, `batchSize` per statement (each its own
 * transaction), tombstoning the names with reason 'purged'. Small batches
 * keep row locks and WAL per statement bounded, so leases and adds of the
 * queue go on between them; the delete trigger keeps the storage counters
 * right. Rows are locked with a plain FOR UPDATE (not SKIP LOCKED), so a
 * task a lease statement holds for the moment is waited for rather than
 * skipped; they are taken in primary-key order, the order in which deletes
 * by name lock them too, so a purge and a delete cannot deadlock (leases
 * never wait: SKIP LOCKED). Tasks added while the purge runs may survive
 * it. Returns how many went.
 */
export async function purgeTasks(
  ctx: StoreContext,
  params: QueueRef & { readonly batchSize: number },
): Promise<number> {
  const tasks = table(ctx, 'tasks');
  const tombstoned = tombstoneUpsert((name) => table(ctx, name), 'tombstoned', {
    queueId: sql`${params.queueId}`,
    source: 'gone',
    reason: 'purged',
  });
  let purged = 0;
  for (;;) {
    // MATERIALIZED: the batch is chosen once (see lease-tasks.ts on #15715).
    const result = await sql<{ n: unknown }>`/* purge_tasks */
      with doomed as materialized (
        select name from ${tasks}
         where queue_id = ${params.queueId}
         order by name
         limit ${params.batchSize}::int4
           for update
      ),
      gone as (
        delete from ${tasks} t using doomed d
         where t.queue_id = ${params.queueId} and t.name = d.name
        returning t.name, t.retry_count
      ),
      ${tombstoned}
      select count(*) as n from gone`.execute(ctx.db);
    const removed = Number(result.rows[0]?.n ?? 0);
    purged += removed;
    if (removed < params.batchSize) return purged;
  }
}
