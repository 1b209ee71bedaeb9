import { sql, type RawBuilder } from 'kysely';
import { QueueError } from '../core/errors.js';
import type { Task } from '../core/task.js';
import type { TaskModifyLeaseParams, TaskRef } from '../core/task-store.js';
import { intervalFromMs, routine, table, timestampFromUsec, usecOf, type StoreContext } from './store-context.js';
import type { Database } from './schema.js';
import { taskFromRow, type TaskRow } from './task-row.js';

/**
 * Renews (or with 0, releases) a lease, fenced by the lease token: the
 * update only matches while eta still equals the expiry the caller was
 * handed AND that expiry lies in the future. A holder whose lease ran out,
 * or was taken over by a later lease, matches nothing and gets
 * TASK_LEASE_EXPIRED; it can never extend someone else's lease.
 */
export async function modifyLease(ctx: StoreContext, params: TaskModifyLeaseParams): Promise<Task> {
  const result = await modifyLeaseStatement((name) => table(ctx, name), {
    queueId: sql`${params.queueId}`,
    name: sql`${params.name}`,
    leaseMs: sql`${params.leaseMs}`,
    token: timestampFromUsec(params.leaseToken),
    ...(params.tag === undefined ? {} : { tag: sql`${params.tag}` }),
    ...(params.lastError === undefined ? {} : { lastError: sql`${params.lastError}` }),
  }).execute(ctx.db);
  const row = result.rows[0];
  if (row) return taskFromRow(params.queueName, row);
  throw await whyNotModified(ctx, params);
}

/** The values a modify binds, as fragments: bound parameters for the service, PL/pgSQL variables for modify_lease. */
export interface ModifyLeaseValues {
  readonly queueId: RawBuilder<unknown>;
  readonly name: RawBuilder<unknown>;
  /** The new lease, in milliseconds from now. */
  readonly leaseMs: RawBuilder<unknown>;
  /** The lease token, a timestamptz. */
  readonly token: RawBuilder<unknown>;
  /** A new tag (the service's updateTask); none in the SQL API. */
  readonly tag?: RawBuilder<unknown>;
  /** The worker's error to keep with the task; none in the SQL API. */
  readonly lastError?: RawBuilder<unknown>;
}

/**
 * The fenced modify, the one definition of the fencing rule: the service
 * runs it with bound values, the SQL API's modify_lease is generated from it
 * (sql-api-functions.ts).
 */
export function modifyLeaseStatement(
  tableOf: (name: keyof Database) => RawBuilder<unknown>,
  v: ModifyLeaseValues,
): RawBuilder<TaskRow> {
  const setTag = v.tag === undefined ? sql`` : sql`, tag = ${v.tag}`;
  const setError = v.lastError === undefined ? sql`` : sql`, last_error = ${v.lastError}`;
  return sql<TaskRow>`/* modify_lease */
    update ${tableOf('tasks')}
       set eta = now() + ${intervalFromMs(v.leaseMs)} ${setTag} ${setError}
     where queue_id = ${v.queueId} and name = ${v.name}
       and eta = ${v.token} and eta > now()
    returning name, tag, payload, retry_count, last_error,
              ${usecOf(sql`eta`)} as eta_usec, ${usecOf(sql`enqueued_at`)} as enqueued_usec`;
}

/**
 * Explains a modify that matched nothing: lease expired (the task is live),
 * deleted (a tombstone row, or a name held by its form, whose delete wrote
 * none), or unknown. The statement is whyNotModifiedStatement, which the
 * SQL API's modify_lease runs too.
 */
async function whyNotModified(ctx: StoreContext, params: TaskRef): Promise<QueueError> {
  const result = await whyNotModifiedStatement(
    (name) => table(ctx, name),
    (name) => routine(ctx, name),
    { queueId: sql`${params.queueId}`, name: sql`${params.name}` },
  ).execute(ctx.db);
  const row = result.rows[0];
  const state =
    row !== undefined && !row.live && !row.deleted
      ? { live: false, deleted: (await heldByForm(ctx, params.name)) === true }
      : row;
  const details = { queue: params.queueName, task: params.name };
  if (state?.live) {
    return new QueueError(
      'TASK_LEASE_EXPIRED',
      `the lease on task "${params.name}" has expired or is held by another lease; it could not be modified`,
      details,
    );
  }
  if (state?.deleted) {
    return new QueueError('TOMBSTONED_TASK', `task "${params.name}" has been deleted`, details);
  }
  return new QueueError('UNKNOWN_TASK', `task "${params.name}" does not exist`, details);
}

/**
 * Why a modify matched nothing, the one definition of it: whether the task
 * is live (so its lease ran out or was taken over) and whether its name is
 * deleted and held by a tombstone row. A name held by its form (on the
 * database's clock) is asked apart, by held_by_form: on Citus this
 * statement runs on the worker holding the queue, where a function that
 * reads the reference table of settings cannot run. Only a failed modify
 * runs either.
 */
export function whyNotModifiedStatement(
  tableOf: (name: keyof Database) => RawBuilder<unknown>,
  routineOf: (name: string) => RawBuilder<unknown>,
  v: { readonly queueId: RawBuilder<unknown>; readonly name: RawBuilder<unknown> },
): RawBuilder<{ live: boolean; deleted: boolean }> {
  return sql<{ live: boolean; deleted: boolean }>`/* why_not_modified */
    select exists (select 1 from ${tableOf('tasks')} where queue_id = ${v.queueId} and name = ${v.name}) as live,
           exists (select 1 from ${tableOf('task_tombstones')} where queue_id = ${v.queueId} and name = ${v.name}) as deleted`;
}

/** Whether a name is held by its form now (held_by_form, sql/routines/held_by_form.sql). */
async function heldByForm(ctx: StoreContext, name: string): Promise<boolean> {
  const result = await sql<{ held: boolean }>`/* held_by_form */
    select ${routine(ctx, 'held_by_form')}(${name}) as held`.execute(ctx.db);
  return result.rows[0]?.held === true;
}
