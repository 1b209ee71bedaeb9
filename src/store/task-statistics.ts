import { sql } from 'kysely';
import { table, toNumber, type StoreContext } from './store-context.js';

/** Below this many tasks no plan can go far wrong: a whole queue is a few pages. */
const MIN_TASKS = 1000;

/**
 * Analyzes the task table when the planner's idea of its size is far below
 * the truth, and says how many tasks it holds.
 *
 * Queue tables swing from empty to large in seconds. When autovacuum last
 * analyzed the table while it was nearly empty, the planner believes a queue
 * holds a row or two until the next automatic analyze (a minute or more
 * later), and with that belief a lookup by name (`queue_id = $1 and name =
 * any($2)`) scans the queue through tasks_lease_idx and filters by name
 * instead of probing the primary key: measured, deletes of 500 names took
 * 100-450 ms against a queue of 18,000 tasks, and the cached generic plans of
 * the prepared statements kept that plan. The storage counters (sql/0004)
 * know the exact number of tasks, so comparing them with pg_class.reltuples
 * costs one small query; ANALYZE samples at most 30,000 rows, takes no lock
 * that blocks adds, leases or deletes, and invalidates the cached plans.
 */
export async function analyzeIfStale(ctx: StoreContext): Promise<{ tasks: number; analyzed: boolean }> {
  const result = await sql<{ tasks: unknown; estimated: unknown }>`/* task_statistics */
    select (select coalesce(sum(task_count), 0) from ${table(ctx, 'queue_storage')})::int8 as tasks,
           (select reltuples from pg_class c join pg_namespace n on n.oid = c.relnamespace
             where n.nspname = ${ctx.schema} and c.relname = 'tasks')::float8 as estimated`.execute(ctx.db);
  const row = result.rows[0];
  const tasks = toNumber(row?.tasks);
  // reltuples is -1 until the first analyze; the planner then estimates from
  // the table's pages, which is close enough, but an analyze does no harm.
  const estimated = Math.max(toNumber(row?.estimated), 0);
  if (tasks < MIN_TASKS || tasks <= 2 * estimated) return { tasks, analyzed: false };
  await sql`/* analyze_tasks */ analyze ${table(ctx, 'tasks')}`.execute(ctx.db);
  return { tasks, analyzed: true };
}
