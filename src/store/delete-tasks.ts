import { sql } from 'kysely';
import type { TaskDeleteParams } from '../core/task-store.js';
import { table, type StoreContext } from './store-context.js';

/**
 * Deletes tasks by name, leased or not, and holds their names with a
 * tombstone, in one statement. A deleted task vanishes from every read at
 * once (it is no longer in `tasks`). Returns the names actually deleted.
 */
export async function deleteTasks(ctx: StoreContext, params: TaskDeleteParams): Promise<string[]> {
  if (params.names.length === 0) return [];
  const result = await sql<{ name: string }>`/* delete_tasks */
    with gone as (
      -- Both primary-key columns in the condition: an index scan that probes
      -- each name (see PLANNER_SETTINGS in database.ts for young tables).
      delete from ${table(ctx, 'tasks')}
       where queue_id = ${params.queueId} and name = any(${[...params.names]}::text[])
      returning name, retry_count
    )
    insert into ${table(ctx, 'task_tombstones')} (queue_id, name, reason, retry_count)
    select ${params.queueId}::int4, name, 'deleted', retry_count from gone
    on conflict (queue_id, name) do update
      set deleted_at = now(), reason = excluded.reason, retry_count = excluded.retry_count
    returning name`.execute(ctx.db);
  return result.rows.map((row) => row.name);
}
