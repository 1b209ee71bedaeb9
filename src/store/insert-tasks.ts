import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { QueueError } from '../core/errors.js';
import type { Task } from '../core/task.js';
import type { TaskInsertParams } from '../core/task-store.js';
import { LIMITS } from '../core/limits.js';
import { runnerFor, type QueryRunner } from './external-transaction.js';
import { intervalFromMs, table, usecOf, type StoreContext } from './store-context.js';
import { taskFromRow, type TaskRow } from './task-row.js';

/**
 * Adds a batch of tasks in one statement, all or nothing. ETAs are computed
 * and checked against the database's clock: if any task's ETA lies beyond the
 * allowed horizon, the WHERE clause lets no row through and the caller gets
 * INVALID_ETA. Tombstoned names and storage limits are enforced by the
 * tasks_after_insert trigger (sql/0007), so they hold for any writer.
 */
export async function insertTasks(ctx: StoreContext, params: TaskInsertParams): Promise<Task[]> {
  if (params.tasks.length === 0) return [];
  const tasks = params.tasks;
  const etaSeconds = tasks.map((t) => (t.etaUsec === null ? null : Math.floor(t.etaUsec / 1_000_000)));
  const etaMicros = tasks.map((t) => (t.etaUsec === null ? null : t.etaUsec - Math.floor(t.etaUsec / 1_000_000) * 1_000_000));
  // One array per column: the statement text is the same for every batch,
  // so the server parses a small statement instead of one with 6 bound
  // values per task.
  const query = sql<TaskRow>`/* insert_tasks */
    with input as (
      select name, tag, payload,
             -- An explicit ETA exactly (seconds and microseconds apart, see
             -- timestampFromUsec); else now() + delay, ord microseconds apart:
             -- tasks of one batch share now(), and this keeps them leased in
             -- the order given (FIFO) instead of by name.
             coalesce(timestamptz 'epoch' + eta_sec * interval '1 second' + eta_micro * interval '1 microsecond',
                      now() + delay_ms * interval '1 millisecond' + (ord - 1) * interval '1 microsecond') as eta
        from unnest(${tasks.map((t) => t.name)}::text[], ${tasks.map((t) => t.tag)}::text[],
                    ${tasks.map((t) => t.payload)}::bytea[], ${etaSeconds}::int8[], ${etaMicros}::int4[],
                    ${tasks.map((t) => t.delayMs)}::float8[])
             with ordinality as i (name, tag, payload, eta_sec, eta_micro, delay_ms, ord)
    )
    insert into ${table(ctx, 'tasks')} (queue_id, name, eta, tag, payload)
    select ${params.queueId}::int4, name, eta, tag, payload
      from input
     -- + 1 ms: the FIFO offsets above add at most 499 microseconds (500
     -- tasks of combined adds, see pg-task-store.ts).
     where (select max(eta) from input) <= now() + ${intervalFromMs(params.maxEtaAheadMs + 1)}
    returning name, tag, retry_count, ${usecOf(sql`eta`)} as eta_usec, ${usecOf(sql`enqueued_at`)} as enqueued_usec`.compile(ctx.db);

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
  // Hand the tasks back in the order given, with the payloads we already have.
  const rows = new Map(result.rows.map((row) => [row.name, row]));
  return tasks.map((task) => {
    const row = rows.get(task.name);
    if (!row) throw new QueueError('INTERNAL_ERROR', `task "${task.name}" was not stored`, { queue: params.queueName });
    return taskFromRow(params.queueName, { ...row, payload: task.payload });
  });
}

/** Transaction-local setting that counts the tasks added in the caller's transaction. */
const ADDED_SETTING = 'taskqueue.tasks_added_in_transaction';

/** Transaction-local setting that proves two statements ran in one transaction. */
const MARKER_SETTING = 'taskqueue.transaction_marker';

/**
 * Enforces "at most 5 tasks per transaction" in the transaction itself: the
 * count lives in a transaction-local setting (set_config(..., true)), which
 * PostgreSQL discards at COMMIT or ROLLBACK, so a pooled client that begins a
 * new transaction starts from 0 again. The count only moves when the add is
 * allowed.
 */
async function countInTransaction(ctx: StoreContext, run: QueryRunner, params: TaskInsertParams): Promise<void> {
  const n = params.tasks.length;
  // A transaction-local marker set by one statement is still there for the
  // next only inside a transaction block: autocommit discards it at once.
  const marker = randomBytes(8).toString('hex');
  await run(sql`/* mark_transaction */ select set_config(${MARKER_SETTING}, ${marker}, true)`.compile(ctx.db));
  const query = sql<{ before: number; allowed: boolean; in_transaction: boolean; read_committed: boolean }>`/* count_in_transaction */
    with current as (
      select coalesce(nullif(current_setting(${ADDED_SETTING}, true), ''), '0')::int4 as before
    )
    select before, before + ${n}::int4 <= ${LIMITS.maxTasksPerTransaction}::int4 as allowed,
           coalesce(current_setting(${MARKER_SETTING}, true), '') = ${marker} as in_transaction,
           current_setting('transaction_isolation') = 'read committed' as read_committed,
           case when before + ${n}::int4 <= ${LIMITS.maxTasksPerTransaction}::int4
                then set_config(${ADDED_SETTING}, (before + ${n}::int4)::text, true) end as counted
      from current`.compile(ctx.db);
  const row = (await run(query)).rows[0];
  if (row && !row.in_transaction) {
    throw new QueueError(
      'INVALID_REQUEST',
      'transaction: the client is not inside a transaction (run BEGIN on it, or pass a Kysely transaction)',
      { queue: params.queueName, field: 'transaction' },
    );
  }
  if (row && !row.read_committed) {
    // The trigger's tombstone and storage-limit checks read the latest
    // committed rows only under READ COMMITTED; a snapshot taken earlier
    // would let a just-deleted name or a just-filled limit through.
    throw new QueueError(
      'INVALID_REQUEST',
      'transaction: tasks can be added only inside READ COMMITTED transactions (the PostgreSQL default)',
      { queue: params.queueName, field: 'transaction' },
    );
  }
  if (!row?.allowed) {
    throw new QueueError(
      'TOO_MANY_TASKS',
      `at most ${LIMITS.maxTasksPerTransaction} tasks may be added in one transaction (this one has ${row?.before ?? '?'})`,
      { queue: params.queueName, limit: LIMITS.maxTasksPerTransaction },
    );
  }
}
