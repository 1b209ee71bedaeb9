import { sql } from 'kysely';
import type { LeaseCount, QueueRef } from '../core/task-store.js';
import { table, toNumber, type StoreContext } from './store-context.js';

/**
 * Tasks leased per minute over the last hour, from lease_history (kept an
 * hour by the cleanup job): sixty buckets, oldest first, the last one the
 * minute now running, empty minutes as 0. Each bucket is a range of the
 * (queue_id, leased_at) index. Written by every process that leases, so the
 * figures are the whole service's and survive restarts.
 */
export async function leaseCounts(ctx: StoreContext, params: QueueRef): Promise<LeaseCount[]> {
  const result = await sql<{ minute_start: unknown; tasks: unknown }>`/* lease_counts */
    select extract(epoch from b.minute)::int8 as minute_start,
           (select coalesce(sum(h.task_count), 0) from ${table(ctx, 'lease_history')} h
             where h.queue_id = ${params.queueId}
               and h.leased_at >= b.minute and h.leased_at < b.minute + interval '1 minute') as tasks
      from generate_series(date_trunc('minute', now()) - interval '59 minutes', date_trunc('minute', now()), interval '1 minute') as b(minute)
     order by b.minute`.execute(ctx.db);
  return result.rows.map((row) => ({ minuteStart: toNumber(row.minute_start), tasks: toNumber(row.tasks) }));
}
