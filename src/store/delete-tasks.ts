import { sql } from 'kysely';
import type { TaskDeleteParams } from '../core/task-store.js';
import { table, type StoreContext } from './store-context.js';

/**
 * Deletes tasks by name, leased or not, in one statement, and holds the
 * names that are not held by their form with a tombstone in the same
 * statement. A deleted task vanishes from every read at once (it is no
 * longer in `tasks`). Returns the names actually deleted.
 *
 * When every name is held by its form (names the service generated, the
 * usual case), the statement is a plain delete: measured on PostgreSQL, the
 * tombstone insert doubled the time and tripled the WAL of a delete of 100.
 */
export async function deleteTasks(ctx: StoreContext, params: TaskDeleteParams): Promise<string[]> {
  if (params.names.length === 0) return [];
  const byForm = new Set(params.heldByForm);
  const untracked = params.names.filter((name) => byForm.has(name));
  // A join with the names, not `name = any($names)`: the statements run
  // prepared, and the generic plan of `queue_id = $1 and name = any($2)`
  // could not tell the primary key from tasks_lease_idx (queue_id, eta), so
  // once the plan was cached a delete read EVERY task of the queue and
  // filtered by name (seen in the REST benchmark: deletes of 500 names took
  // 100-450 ms against a queue of 18,000 tasks). The join's inner side is an
  // equality on the whole primary key, a unique probe per name, which no
  // other path beats whatever the statistics say (hash and merge joins are
  // off, PLANNER_SETTINGS in database.ts).
  if (untracked.length === params.names.length) {
    const result = await sql<{ name: string }>`/* delete_tasks_untracked */
      delete from ${table(ctx, 'tasks')} t using unnest(${[...params.names]}::text[]) as n (name)
       where t.queue_id = ${params.queueId} and t.name = n.name
      returning t.name`.execute(ctx.db);
    return result.rows.map((row) => row.name);
  }
  // Some names need a row: the same delete, with the tombstones of those
  // names only (usually none are left out: all chosen names, or all of an
  // older generated form).
  const result = await sql<{ name: string }>`/* delete_tasks */
    with gone as (
      delete from ${table(ctx, 'tasks')} t using unnest(${[...params.names]}::text[]) as n (name)
       where t.queue_id = ${params.queueId} and t.name = n.name
      returning t.name, t.retry_count
    ), held as (
      insert into ${table(ctx, 'task_tombstones')} (queue_id, name, reason, retry_count)
      select ${params.queueId}::int4, name, 'deleted', retry_count from gone where name <> all(${untracked}::text[])
      on conflict (queue_id, name) do update
        set deleted_at = now(), reason = excluded.reason, retry_count = excluded.retry_count
    )
    select name from gone`.execute(ctx.db);
  return result.rows.map((row) => row.name);
}
