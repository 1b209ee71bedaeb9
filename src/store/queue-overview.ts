import { sql } from 'kysely';
import type { QueueMode } from '../core/queue-config.js';
import type { QueueOverview } from '../core/queue-overview.js';
import { table, toNumber, type StoreContext } from './store-context.js';

interface OverviewRow {
  queue: string;
  mode: QueueMode;
  paused: boolean;
  available_tasks: unknown;
  leased_tasks: unknown;
  delayed_tasks: unknown;
  oldest_available_age_seconds: unknown;
  leased_last_minute: unknown;
  leased_last_hour: unknown;
  dead_letters: unknown;
  storage_bytes: unknown;
  storage_limit_bytes: unknown;
  retry_limit: number | null;
  lease_rate_calls: number | null;
  lease_rate_seconds: number | null;
}

/**
 * The given queues at a glance, in one query over the queue_stats view
 * (sql/0009): operators read the same figures with SQL as the service
 * reports, from one definition.
 */
export async function queueOverview(ctx: StoreContext, params: { readonly queueIds: readonly number[] }): Promise<QueueOverview[]> {
  const result = await sql<OverviewRow>`/* queue_overview */
    select queue, mode, paused, available_tasks, leased_tasks, delayed_tasks, oldest_available_age_seconds,
           leased_last_minute, leased_last_hour, dead_letters, storage_bytes, storage_limit_bytes,
           retry_limit, lease_rate_calls, lease_rate_seconds
      from ${table(ctx, 'queue_stats')}
     where queue_id = any(${[...params.queueIds]}::int4[])
     order by queue`.execute(ctx.db);
  return result.rows.map((row) => ({
    name: row.queue,
    mode: row.mode,
    paused: row.paused,
    availableTasks: toNumber(row.available_tasks),
    leasedTasks: toNumber(row.leased_tasks),
    delayedTasks: toNumber(row.delayed_tasks),
    oldestAvailableAgeSeconds: row.oldest_available_age_seconds === null ? null : Math.max(0, toNumber(row.oldest_available_age_seconds)),
    leasedLastMinute: toNumber(row.leased_last_minute),
    leasedLastHour: toNumber(row.leased_last_hour),
    deadLetters: toNumber(row.dead_letters),
    storageBytes: toNumber(row.storage_bytes),
    storageLimitBytes: row.storage_limit_bytes === null ? null : toNumber(row.storage_limit_bytes),
    retryLimit: row.retry_limit,
    leaseRate:
      row.lease_rate_calls === null || row.lease_rate_seconds === null
        ? null
        : { calls: row.lease_rate_calls, windowSeconds: row.lease_rate_seconds },
  }));
}
