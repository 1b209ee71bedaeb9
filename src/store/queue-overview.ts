import { sql, type RawBuilder } from 'kysely';
import type { PushQueueSettings, QueueMode } from '../core/queue-config.js';
import type { PushQueueOverview, QueueOverview } from '../core/queue-overview.js';
import { onCitus, perQueue } from './on-citus.js';
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
 * reports, from one definition. On Citus a query per queue instead
 * (citusQueueStats): the view joins the reference table `queues` to the
 * distributed tables per queue, which Citus cannot plan; with the queue's id
 * given in every part, each is one router statement on the queue's worker.
 */
export async function queueOverview(
  ctx: StoreContext,
  params: { readonly queueIds: readonly number[] },
): Promise<QueueOverview[]> {
  let rows: OverviewRow[];
  if (await onCitus(ctx)) {
    const read = async (id: number) => {
      const key = sql`${id}::int4`;
      return (await overviewStatement(ctx, sql`(${citusQueueStats(ctx, key)}) s`, key, sql`true`).execute(ctx.db)).rows;
    };
    rows = (await perQueue(params.queueIds, read)).sort((a, b) => (a.queue < b.queue ? -1 : a.queue > b.queue ? 1 : 0));
  } else {
    const where = sql`s.queue_id = any(${[...params.queueIds]}::int4[])`;
    rows = (await overviewStatement(ctx, sql`${table(ctx, 'queue_stats')} s`, sql`s.queue_id`, where).execute(ctx.db))
      .rows;
  }
  return rows.map(toOverview);
}

/**
 * The overview over `source` (the view, or one queue's figures on Citus),
 * with each queue's push state: `key` is the queue's id, `s.queue_id` or a
 * bound value (Citus routes a statement by a value, not by a join to a
 * reference table).
 */
function overviewStatement(
  ctx: StoreContext,
  source: RawBuilder<unknown>,
  key: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
) {
  return sql<OverviewRow>`/* queue_overview */
    select s.queue, s.mode, s.paused, s.available_tasks, s.leased_tasks, s.delayed_tasks, s.oldest_available_age_seconds,
           s.leased_last_minute, s.leased_last_hour, s.dead_letters, s.storage_bytes, s.storage_limit_bytes,
           s.retry_limit, s.lease_rate_calls, s.lease_rate_seconds, s.long_leases,
           q.push_settings,
           case when q.push_settings is not null then
             (select count(*) from ${table(ctx, 'tasks')} t
               where t.queue_id = ${key} and t.dispatched_at is not null and t.eta > now()) end as in_flight,
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
         where p.queue_id = ${key} and q.push_settings is not null
      ) b on true
     where ${where}
     order by s.queue`;
}

/**
 * One queue's row of queue_stats (sql/routines/queue_stats.sql, the same
 * figures by the same reads) for Citus: every part names the queue's id as a
 * value, so Citus routes the statement whole to the worker holding the queue.
 * queue_future_tasks is inlined: a function reading a distributed table
 * cannot run inside a statement Citus pushes to a worker.
 */
function citusQueueStats(ctx: StoreContext, key: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`/* queue_stats_citus */
    select q.id as queue_id, q.name as queue, q.mode, q.paused,
           s.tasks - f.leased - f.delayed as available_tasks, f.leased as leased_tasks, f.delayed as delayed_tasks,
           extract(epoch from now() - o.eta)::float8 as oldest_available_age_seconds,
           h.last_minute as leased_last_minute, h.last_hour as leased_last_hour, d.dead_letters,
           s.bytes as storage_bytes, q.storage_limit_bytes, q.max_leases as retry_limit,
           q.lease_rate_calls, q.lease_rate_seconds, f.long_leases
      from ${table(ctx, 'queues')} q
     cross join (
           select coalesce(sum(task_count), 0)::int8 as tasks, coalesce(sum(byte_count), 0)::int8 as bytes
             from ${table(ctx, 'queue_storage')} where queue_id = ${key}) s
     cross join (
           select count(*) filter (where retry_count > 0) as leased, count(*) filter (where retry_count = 0) as delayed,
                  count(*) filter (where retry_count > 0 and push is null and eta > now() + interval '15 minutes') as long_leases
             from ${table(ctx, 'tasks')} where queue_id = ${key} and eta > now()) f
      left join (
           select eta from ${table(ctx, 'tasks')} where queue_id = ${key} order by eta limit 1) o on o.eta <= now()
     cross join (
           select coalesce(sum(task_count) filter (where leased_at > now() - interval '1 minute'), 0)::int8 as last_minute,
                  coalesce(sum(task_count), 0)::int8 as last_hour
             from ${table(ctx, 'lease_history')} where queue_id = ${key} and leased_at > now() - interval '1 hour') h
     cross join (
           select coalesce(sum(dead_letters), 0)::int8 as dead_letters
             from ${table(ctx, 'dead_letter_counts')} where queue_id = ${key}) d
     where q.id = ${key}`;
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
