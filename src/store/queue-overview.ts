import { sql } from 'kysely';
import type { PushQueueSettings, QueueMode } from '../core/queue-config.js';
import type { PushQueueOverview, QueueOverview } from '../core/queue-overview.js';
import { table, toNumber, usecOf, type StoreContext } from './store-context.js';

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
  long_leases: unknown;
  push_settings: unknown;
  in_flight: unknown;
  tokens: number | null;
  held_until_usec: unknown;
  slowed_until_usec: unknown;
}

/**
 * The given queues at a glance, in one query over the queue_stats view
 * (sql/0009): operators read the same figures with SQL as the service
 * reports, from one definition.
 */
export async function queueOverview(
  ctx: StoreContext,
  params: { readonly queueIds: readonly number[] },
): Promise<QueueOverview[]> {
  const result = await sql<OverviewRow>`/* queue_overview */
    select s.queue, s.mode, s.paused, s.available_tasks, s.leased_tasks, s.delayed_tasks, s.oldest_available_age_seconds,
           s.leased_last_minute, s.leased_last_hour, s.dead_letters, s.storage_bytes, s.storage_limit_bytes,
           s.retry_limit, s.lease_rate_calls, s.lease_rate_seconds, s.long_leases,
           q.push_settings,
           case when q.push_settings is not null then
             (select count(*) from ${table(ctx, 'tasks')} t
               where t.queue_id = s.queue_id and t.dispatched_at is not null and t.eta > now()) end as in_flight,
           b.tokens, b.held_until_usec, b.slowed_until_usec
      from ${table(ctx, 'queue_stats')} s
      join ${table(ctx, 'queues')} q on q.id = s.queue_id
      left join lateral (
        -- The bucket as the next claim would find it (claim_push_tasks,
        -- sql/routines/claim_push_tasks.sql): refilled since the last claim at the rate (half of it
        -- while slowed by a 503), none earned during a Retry-After hold.
        select case when p.hold_until > now() then 0::float8
                    else least((q.push_settings ->> 'bucketSize')::float8,
                               p.tokens + (q.push_settings ->> 'ratePerSecond')::float8
                                          * (case when p.slow_until > now() then 0.5 else 1 end)
                                          * greatest(0, extract(epoch from now() - greatest(p.refilled_at, coalesce(p.hold_until, p.refilled_at))))::float8)
               end as tokens,
               case when p.hold_until > now() then ${usecOf(sql`p.hold_until`)} end as held_until_usec,
               case when p.slow_until > now() then ${usecOf(sql`p.slow_until`)} end as slowed_until_usec
          from ${table(ctx, 'push_queue_state')} p
         where p.queue_id = s.queue_id and q.push_settings is not null
      ) b on true
     where s.queue_id = any(${[...params.queueIds]}::int4[])
     order by s.queue`.execute(ctx.db);
  return result.rows.map((row) => ({
    name: row.queue,
    mode: row.mode,
    paused: row.paused,
    availableTasks: toNumber(row.available_tasks),
    leasedTasks: toNumber(row.leased_tasks),
    delayedTasks: toNumber(row.delayed_tasks),
    oldestAvailableAgeSeconds:
      row.oldest_available_age_seconds === null ? null : Math.max(0, toNumber(row.oldest_available_age_seconds)),
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
    longLeases: toNumber(row.long_leases),
    ...(row.push_settings ? { push: pushOverview(row) } : {}),
  }));
}

function pushOverview(row: OverviewRow): PushQueueOverview {
  const settings = (
    typeof row.push_settings === 'string' ? JSON.parse(row.push_settings) : row.push_settings
  ) as PushQueueSettings;
  return {
    ratePerSecond: settings.ratePerSecond,
    bucketSize: settings.bucketSize,
    maxConcurrentRequests: settings.maxConcurrentRequests,
    targetUrl: settings.baseUrl ?? settings.targetUrl,
    target: settings.target ?? null,
    inFlight: toNumber(row.in_flight),
    tokens: row.tokens === null || row.tokens === undefined ? null : Number(row.tokens),
    heldUntilUsec:
      row.held_until_usec === null || row.held_until_usec === undefined ? null : toNumber(row.held_until_usec),
    slowedUntilUsec:
      row.slowed_until_usec === null || row.slowed_until_usec === undefined ? null : toNumber(row.slowed_until_usec),
  };
}
