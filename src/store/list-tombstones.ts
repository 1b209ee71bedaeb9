import { sql } from 'kysely';
import type { TombstoneListParams } from '../core/task-store.js';
import type { Tombstone, TombstoneReason } from '../core/tombstone.js';
import { table, toNumber, usecOf, type StoreContext } from './store-context.js';

/**
 * A queue's most recent tombstones, newest first (operators: what went
 * lately, and why). The planner picks between the index on deleted_at, read
 * backwards and filtered by queue (cheap when the queue had recent deletes,
 * the case this is for), and the queue's primary-key range plus a top-N
 * sort; either way no index is added to the hot delete path for a view.
 */
export async function listTombstones(ctx: StoreContext, params: TombstoneListParams): Promise<Tombstone[]> {
  const result = await sql<{
    name: string;
    reason: TombstoneReason;
    deleted_usec: unknown;
    retry_count: number;
  }>`/* list_tombstones */
    select name, reason, ${usecOf(sql`deleted_at`)} as deleted_usec, retry_count
      from ${table(ctx, 'task_tombstones')}
     where queue_id = ${params.queueId}
     order by deleted_at desc, name desc
     limit ${params.limit}::int4`.execute(ctx.db);
  return result.rows.map((row) => ({
    name: row.name,
    queueName: params.queueName,
    reason: row.reason,
    deletedUsec: toNumber(row.deleted_usec),
    retryCount: row.retry_count,
  }));
}
