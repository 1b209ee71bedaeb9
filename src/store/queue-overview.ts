import { sql, type RawBuilder } from 'kysely';
import type { PushQueueSettings, QueueMode } from '../core/queue-config.js';
import type { PushQueueOverview, QueueOverview } from '../core/queue-overview.js';
import { onCitus, perShard } from './on-citus.js';
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
 * (sql/routines/queue_stats.sql): operators read the same figures with SQL as the service
 * reports, from one definition. On Citus a query per shard instead
 * (citusQueueStats): Citus cannot plan the view's per-queue LATERAL reads of
 * the distributed tables from the reference table `queues`, but it routes
 * the same reads whole to one worker when every one of them also names its
 * queues' ids, all of one shard, as values.
 */
export async function queueOverview(
  ctx: StoreContext,
  params: { readonly queueIds: readonly number[] },
): Promise<QueueOverview[]> {
  let rows: OverviewRow[];
  if (await onCitus(ctx)) {
    const read = async (ids: number[]) => {
      const within = (column: RawBuilder<unknown>) => sql`and ${column} = any(${ids}::int4[])`;
      const where = sql`s.queue_id = any(${ids}::int4[])`;
      return (await overviewStatement(ctx, sql`(${citusQueueStats(ctx, ids)}) s`, where, within).execute(ctx.db)).rows;
    };
    rows = (await perShard(ctx, params.queueIds, read)).sort((a, b) =>
      a.queue < b.queue ? -1 : a.queue > b.queue ? 1 : 0,
    );
  } else {
    const where = sql`s.queue_id = any(${[...params.queueIds]}::int4[])`;
    rows = (await overviewStatement(ctx, sql`${table(ctx, 'queue_stats')} s`, where, () => sql``).execute(ctx.db)).rows;
  }
  return rows.map(toOverview);
}

/**
 * The overview over `source` (the view, or one shard's queues on Citus),
 * with each queue's push state; `within` restricts a read of a distributed
 * table to the shard's queues on Citus (nothing on PostgreSQL).
 */
function overviewStatement(
  ctx: StoreContext,
  source: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
  within: (column: RawBuilder<unknown>) => RawBuilder<unknown>,
) {
  return sql<OverviewRow>`/* queue_overview */
    select s.queue, s.mode, s.paused, s.available_tasks, s.leased_tasks, s.delayed_tasks, s.oldest_available_age_seconds,
           s.leased_last_minute, s.leased_last_hour, s.dead_letters, s.storage_bytes, s.storage_limit_bytes,
           s.retry_limit, s.lease_rate_calls, s.lease_rate_seconds, s.long_leases,
           q.push_settings,
           case when q.push_settings is not null then
             (select count(*) from ${table(ctx, 'tasks')} t
               where t.queue_id = s.queue_id ${within(sql`t.queue_id`)} and t.dispatched_at is not null and t.eta > now()) end as in_flight,
           b.tokens, b.held_until_usec, b.slowed_until_usec
      from ${source}
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
         where p.queue_id = s.queue_id ${within(sql`p.queue_id`)} and q.push_settings is not null
      ) b on true
     where ${where}
     order by s.queue`;
}

/**
 * The rows of queue_stats (sql/routines/queue_stats.sql, the same figures by
 * the same reads; sql/routines/queue_stats_by_queue.sql is this statement in
 * SQL) for queues `ids`, all of one shard, on Citus: every read also names
 * the ids as values, so Citus routes the statement whole to the worker
 * holding the shard. queue_future_tasks is inlined: a function reading a
 * distributed table cannot run inside a statement Citus pushes to a worker.
 */
function citusQueueStats(ctx: StoreContext, ids: readonly number[]): RawBuilder<unknown> {
  const list = [...ids];
  return sql`/* queue_stats_citus */
    select q.id as queue_id, q.name as queue, q.mode, q.paused,
           s.tasks - f.leased - f.delayed as available_tasks, f.leased as leased_tasks, f.delayed as delayed_tasks,
           extract(epoch from now() - o.eta)::float8 as oldest_available_age_seconds,
           h.last_minute as leased_last_minute, h.last_hour as leased_last_hour, d.dead_letters,
           s.bytes as storage_bytes, q.storage_limit_bytes, q.max_leases as retry_limit,
           q.lease_rate_calls, q.lease_rate_seconds, f.long_leases
      from ${table(ctx, 'queues')} q
     cross join lateral (
           select coalesce(sum(task_count), 0)::int8 as tasks, coalesce(sum(byte_count), 0)::int8 as bytes
             from ${table(ctx, 'queue_storage')} where queue_id = q.id and queue_id = any(${list}::int4[])) s
     cross join lateral (
           select count(*) filter (where retry_count > 0) as leased, count(*) filter (where retry_count = 0) as delayed,
                  count(*) filter (where retry_count > 0 and push is null and eta > now() + interval '15 minutes') as long_leases
             from ${table(ctx, 'tasks')} where queue_id = q.id and queue_id = any(${list}::int4[]) and eta > now()) f
      left join lateral (
           select eta from ${table(ctx, 'tasks')} where queue_id = q.id and queue_id = any(${list}::int4[]) order by eta limit 1) o on o.eta <= now()
     cross join lateral (
           select coalesce(sum(task_count) filter (where leased_at > now() - interval '1 minute'), 0)::int8 as last_minute,
                  coalesce(sum(task_count), 0)::int8 as last_hour
             from ${table(ctx, 'lease_history')} where queue_id = q.id and queue_id = any(${list}::int4[]) and leased_at > now() - interval '1 hour') h
     cross join lateral (
           select coalesce(sum(dead_letters), 0)::int8 as dead_letters
             from ${table(ctx, 'dead_letter_counts')} where queue_id = q.id and queue_id = any(${list}::int4[])) d
     where q.id = any(${list}::int4[])`;
}

function toOverview(row: OverviewRow): QueueOverview {
  return {
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
  };
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
