import { sql } from 'kysely';
import type { TaskDeleteLeasedParams } from '../core/task-store.js';
import { table, usecOf, type StoreContext } from './store-context.js';
import { tombstoneUpsert } from './tombstone-upsert.js';

/**
 * Deletes tasks only while each still carries the lease token its holder
 * was handed (a worker's success): a task whose lease was taken over by a
 * later lease, renewed by someone else, released or purged matches nothing,
 * so a stale holder never deletes another's task. A lease that ran out but
 * that nobody took since still matches (its eta is unchanged), as App
 * Engine's delete after expiry does. Names not held by their form get a
 * tombstone row, as in delete-tasks.ts. Returns the names deleted.
 */
export async function deleteLeasedTasks(ctx: StoreContext, params: TaskDeleteLeasedParams): Promise<string[]> {
  if (params.names.length === 0) return [];
  const { names, leaseTokens } = params;
  // A join on the (name, token) pairs finds each row by its primary key
  // and compares its token in the join: the earlier
  // `tokens[array_position(names, t.name)]` compared names one by one under
  // the collation for each row found, 2.8x the time of an unfenced delete
  // of 100 tasks (1.03 against 0.37 ms; the join: 0.47 ms).
  const byForm = new Set(params.heldByForm);
  if (names.every((name) => byForm.has(name))) {
    // Every name held by its form (the service generated them: the usual
    // case): a plain delete, as delete_tasks_untracked. The tombstone CTE,
    // with its `<> all(...)` per row, cost the runner's fenced deletes a
    // tenth of the REST runner's throughput against unfenced ones.
    const plain = await sql<{ name: string }>`/* delete_leased_tasks_untracked */
      delete from ${table(ctx, 'tasks')} t
       using unnest(${names}::text[], ${leaseTokens}::int8[]) as held(name, token)
       where t.queue_id = ${params.queueId} and t.name = held.name and ${usecOf(sql`t.eta`)} = held.token
      returning t.name`.execute(ctx.db);
    return plain.rows.map((row) => row.name);
  }
  const result = await sql<{ name: string }>`/* delete_leased_tasks */
    with gone as (
      delete from ${table(ctx, 'tasks')} t
       using unnest(${names}::text[], ${leaseTokens}::int8[]) as held(name, token)
       where t.queue_id = ${params.queueId} and t.name = held.name and ${usecOf(sql`t.eta`)} = held.token
      returning t.name, t.retry_count
    ), ${tombstoneUpsert((name) => table(ctx, name), 'tombstoned', {
      queueId: sql`${params.queueId}`,
      source: 'gone',
      reason: 'deleted',
      where: sql`name <> all(${[...params.heldByForm]}::text[])`,
    })}
    select name from gone`.execute(ctx.db);
  return result.rows.map((row) => row.name);
}
