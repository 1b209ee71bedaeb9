import { sql } from 'kysely';
import type { Task } from '../core/task.js';
import type { QueueRef, QueueStats, TaskListParams, TaskRef } from '../core/task-store.js';
import { table, timestampFromUsec, toNumber, usecOf, type StoreContext } from './store-context.js';
import { taskFromRow, type TaskRow } from './task-row.js';

/** A push task's request and delivery state (sql/0012), read with it. */
export const PUSH_COLUMNS = sql`push, execution_count, last_status, (dispatched_at is not null and eta > now()) as in_flight`;

/** One live task by name, or null. */
export async function getTask(ctx: StoreContext, params: TaskRef): Promise<Task | null> {
  const result = await sql<TaskRow>`/* get_task */
    select name, tag, payload, retry_count, last_error,
           ${usecOf(sql`eta`)} as eta_usec, ${usecOf(sql`enqueued_at`)} as enqueued_usec, ${PUSH_COLUMNS}
      from ${table(ctx, 'tasks')}
     where queue_id = ${params.queueId} and name = ${params.name}`.execute(ctx.db);
  const row = result.rows[0];
  return row ? taskFromRow(params.queueName, row) : null;
}

/**
 * Whether a deleted task's name is still held by a tombstone row. (Names
 * held by their form have none; the core knows those without asking.)
 */
export async function isTombstoned(ctx: StoreContext, params: TaskRef): Promise<boolean> {
  const result = await sql<{ held: boolean }>`/* is_tombstoned */
    select exists (
      select 1 from ${table(ctx, 'task_tombstones')} where queue_id = ${params.queueId} and name = ${params.name}
    ) as held`.execute(ctx.db);
  return result.rows[0]?.held === true;
}

/**
 * Live tasks in (eta, name) order, a page at a time. Keyset pagination: the
 * next page starts after the last (eta, name) seen, so pages stay cheap
 * however deep the listing goes. Optionally only one state and/or one tag
 * (operators browsing a queue).
 */
export async function listTasks(ctx: StoreContext, params: TaskListParams): Promise<Task[]> {
  const after = params.after
    ? sql`and (eta, name) > (${timestampFromUsec(params.after.etaUsec)}, ${params.after.name})`
    : sql``;
  const payload = params.withoutPayload ? sql`null::bytea as payload` : sql`payload`;
  // The states of TaskState, in the one-timestamp model (see sql/0009's views).
  const state =
    params.state === 'available'
      ? sql`and eta <= now()`
      : params.state === 'leased'
        ? sql`and eta > now() and retry_count > 0`
        : params.state === 'delayed'
          ? sql`and eta > now() and retry_count = 0`
          : sql``;
  const tag =
    params.tag === undefined ? sql`` : params.tag === null ? sql`and tag is null` : sql`and tag = ${params.tag}`;
  const result = await sql<TaskRow>`/* list_tasks */
    select name, tag, ${payload}, retry_count, last_error,
           ${usecOf(sql`eta`)} as eta_usec, ${usecOf(sql`enqueued_at`)} as enqueued_usec, ${PUSH_COLUMNS}
      from ${table(ctx, 'tasks')}
     where queue_id = ${params.queueId} ${after} ${state} ${tag}
     order by eta, name
     limit ${params.limit}::int4`.execute(ctx.db);
  return result.rows.map((row) => taskFromRow(params.queueName, row));
}

/**
 * Queue statistics. Counts come from the sharded counters (exact, and cheap
 * however many tasks wait); the oldest ETA from the lease index; leases in
 * the last minute and hour from lease_history.
 */
export async function queueStats(ctx: StoreContext, params: QueueRef): Promise<QueueStats> {
  const q = params.queueId;
  const result = await sql<{
    total_tasks: unknown;
    total_bytes: unknown;
    oldest_eta_usec: unknown;
    leased_last_minute: unknown;
    leased_last_hour: unknown;
  }>`/* queue_stats */
    select
      (select coalesce(sum(task_count), 0) from ${table(ctx, 'queue_storage')} where queue_id = ${q}) as total_tasks,
      (select coalesce(sum(byte_count), 0) from ${table(ctx, 'queue_storage')} where queue_id = ${q}) as total_bytes,
      (select ${usecOf(sql`min(eta)`)} from ${table(ctx, 'tasks')} where queue_id = ${q}) as oldest_eta_usec,
      (select coalesce(sum(task_count), 0) from ${table(ctx, 'lease_history')}
        where queue_id = ${q} and leased_at > now() - interval '1 minute') as leased_last_minute,
      (select coalesce(sum(task_count), 0) from ${table(ctx, 'lease_history')}
        where queue_id = ${q} and leased_at > now() - interval '1 hour') as leased_last_hour`.execute(ctx.db);
  const row = result.rows[0];
  return {
    totalTasks: toNumber(row?.total_tasks),
    totalBytes: toNumber(row?.total_bytes),
    oldestEtaUsec:
      row?.oldest_eta_usec === null || row?.oldest_eta_usec === undefined ? null : toNumber(row.oldest_eta_usec),
    leasedLastMinute: toNumber(row?.leased_last_minute),
    leasedLastHour: toNumber(row?.leased_last_hour),
  };
}
