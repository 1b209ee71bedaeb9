import { sql } from 'kysely';
import { QueueError } from '../core/errors.js';
import type { Task } from '../core/task.js';
import type { TaskInsertParams } from '../core/task-store.js';
import { LIMITS } from '../core/limits.js';
import { runnerFor, type QueryRunner } from './external-transaction.js';
import { intervalFromMs, table, timestampFromUsec, usecOf, type StoreContext } from './store-context.js';
import { taskFromRow, type TaskRow } from './task-row.js';

/**
 * Adds a batch of tasks in one statement, all or nothing. ETAs are computed
 * and checked against the database's clock: if any task's ETA lies beyond the
 * allowed horizon, the WHERE clause lets no row through and the caller gets
 * INVALID_ETA. Tombstoned names and storage limits are enforced by the
 * tasks_after_insert trigger (sql/0004), so they hold for any writer.
 */
export async function insertTasks(ctx: StoreContext, params: TaskInsertParams): Promise<Task[]> {
  if (params.tasks.length === 0) return [];
  const rows = params.tasks.map(
    (task, i) =>
      sql`(${i}::int4, ${task.name}::text, ${
        // i microseconds apart: tasks of one batch share now(), and this keeps
        // them leased in the order given (FIFO) instead of by name.
        task.etaUsec === null ? sql`now() + ${intervalFromMs(task.delayMs + i / 1000)}` : timestampFromUsec(task.etaUsec)
      }, ${task.tag}::text, ${task.payload}::bytea)`,
  );
  const query = sql<TaskRow>`
    with input (ord, name, eta, tag, payload) as (values ${sql.join(rows)}),
    inserted as (
      insert into ${table(ctx, 'tasks')} (queue_id, name, eta, tag, payload)
      select ${params.queueId}::int4, name, eta, tag, payload
        from input
       where (select max(eta) from input) <= now() + ${intervalFromMs(params.maxEtaAheadMs)}
       order by ord
      returning name, tag, retry_count, eta, enqueued_at
    )
    select i.name, i.tag, i.retry_count,
           ${usecOf(sql`i.eta`)} as eta_usec, ${usecOf(sql`i.enqueued_at`)} as enqueued_usec
      from inserted i join input using (name)
     order by input.ord`.compile(ctx.db);

  let result;
  if (params.transaction) {
    const run = runnerFor(params.transaction);
    await countInTransaction(ctx, run, params);
    result = await run(query);
  } else {
    result = await ctx.db.executeQuery(query);
  }
  if (result.rows.length === 0) {
    throw new QueueError(
      'INVALID_ETA',
      'a task ETA lies more than 30 days ahead of the current time',
      { queue: params.queueName },
    );
  }
  const payloads = new Map(params.tasks.map((t) => [t.name, t.payload]));
  return result.rows.map((row) => taskFromRow(params.queueName, { ...row, payload: payloads.get(row.name) ?? null }));
}

/** Transaction-local setting that counts the tasks added in the caller's transaction. */
const ADDED_SETTING = 'taskqueue.tasks_added_in_transaction';

/**
 * Enforces "at most 5 tasks per transaction" in the transaction itself: the
 * count lives in a transaction-local setting (set_config(..., true)), which
 * PostgreSQL discards at COMMIT or ROLLBACK, so a pooled client that begins a
 * new transaction starts from 0 again. The count only moves when the add is
 * allowed.
 */
async function countInTransaction(ctx: StoreContext, run: QueryRunner, params: TaskInsertParams): Promise<void> {
  const n = params.tasks.length;
  const query = sql<{ before: number; allowed: boolean }>`
    with current as (
      select coalesce(nullif(current_setting(${ADDED_SETTING}, true), ''), '0')::int4 as before
    )
    select before, before + ${n}::int4 <= ${LIMITS.maxTasksPerTransaction}::int4 as allowed,
           case when before + ${n}::int4 <= ${LIMITS.maxTasksPerTransaction}::int4
                then set_config(${ADDED_SETTING}, (before + ${n}::int4)::text, true) end as counted
      from current`.compile(ctx.db);
  const row = (await run(query)).rows[0];
  if (!row?.allowed) {
    throw new QueueError(
      'TOO_MANY_TASKS',
      `at most ${LIMITS.maxTasksPerTransaction} tasks may be added in one transaction (this one has ${row?.before ?? '?'})`,
      { queue: params.queueName, limit: LIMITS.maxTasksPerTransaction },
    );
  }
}
