import { sql } from 'kysely';
import type { CronFiringRow } from '../../core/cron/cron-history.js';
import { table, type StoreContext } from '../store-context.js';

interface Row {
  task: string;
  where_found: CronFiringRow['where'];
  attempts: number;
  last_error: string | null;
  last_status: number | null;
  reason: string | null;
  at_ms: number | string;
}

/**
 * The names just past every name that starts with `prefix`, byte-wise (the
 * name columns are COLLATE "C"): `name >= prefix and name < upper` is a
 * range of the (queue_id, name) primary keys, read backwards for the newest.
 */
export function prefixUpperBound(prefix: string): string {
  return `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`;
}

/**
 * A job's recent firings as its queue's tables hold them: tasks, dead
 * letters and tombstones named `cron-<job>-...`, each table's newest names
 * first and at most `limit` of each, in one statement of three index
 * ranges. Times cross as epoch milliseconds, the same on both engines.
 */
export async function cronFiringRows(
  ctx: StoreContext,
  params: { readonly job: string; readonly queue: string; readonly limit: number },
): Promise<CronFiringRow[]> {
  const low = `cron-${params.job}-`;
  const high = prefixUpperBound(low);
  const queueId = sql`(select id from ${table(ctx, 'queues')} where name = ${params.queue})`;
  const range = sql`queue_id = ${queueId} and name >= ${low} and name < ${high}`;
  const limit = sql`${params.limit}::int4`;
  const result = await sql<Row>`/* cron_firing_rows */
    (select name as task, 'task' as where_found, retry_count as attempts, last_error, last_status,
            null::text as reason, (extract(epoch from eta) * 1000)::float8 as at_ms
       from ${table(ctx, 'tasks')} where ${range} order by name desc limit ${limit})
    union all
    (select name, 'dead_letter', retry_count, last_error, last_status,
            null::text, (extract(epoch from died_at) * 1000)::float8
       from ${table(ctx, 'task_dead_letters')} where ${range} order by name desc limit ${limit})
    union all
    (select name, 'tombstone', retry_count, null::text, null::int4,
            reason, (extract(epoch from deleted_at) * 1000)::float8
       from ${table(ctx, 'task_tombstones')} where ${range} order by name desc limit ${limit})`.execute(ctx.db);
  return result.rows.map((row) => ({
    task: row.task,
    where: row.where_found,
    attempts: row.attempts,
    lastError: row.last_error,
    lastStatus: row.last_status,
    reason: row.reason,
    at: new Date(Number(row.at_ms)),
  }));
}
