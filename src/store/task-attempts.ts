import { sql, type RawBuilder } from 'kysely';
import {
  ATTEMPTS_KEPT,
  type AttemptListParams,
  type AttemptOutcome,
  type AttemptRecordParams,
  type TaskAttempt,
} from '../core/task-attempt.js';
import type { QueueRef } from '../core/task-store.js';
import type { Database } from './schema.js';
import { table, timestampFromUsec, toNumber, usecOf, type StoreContext } from './store-context.js';

interface AttemptRow {
  attempt: number;
  ended_usec: unknown;
  outcome: string;
  http_status: number | null;
  error: string | null;
  response_excerpt: string | null;
  duration_ms: number | null;
}

/**
 * Records attempts of one queue's tasks in one statement (sql/0019): each
 * replaces the row of its number, and drops the row ATTEMPTS_KEPT numbers
 * before it, so a task keeps its last ATTEMPTS_KEPT (primary key probes
 * only). A lapse (`enqueuedUsec` given) is skipped when a row of its
 * number ended after the task was added: its worker already reported
 * that lease's failure.
 */
export async function recordAttempts(ctx: StoreContext, params: AttemptRecordParams): Promise<void> {
  if (params.attempts.length === 0) return;
  const a = params.attempts;
  const attempts = table(ctx, 'task_attempts');
  await sql`/* record_task_attempts */
    with n as (
      select * from unnest(
        ${a.map((x) => x.name)}::text[], ${a.map((x) => x.attempt)}::int4[], ${a.map((x) => x.outcome)}::text[],
        ${a.map((x) => x.httpStatus ?? null)}::int4[], ${a.map((x) => x.error ?? null)}::text[],
        ${a.map((x) => x.responseExcerpt ?? null)}::text[], ${a.map((x) => x.durationMs ?? null)}::int4[],
        ${a.map((x) => (x.enqueuedUsec === undefined ? null : x.enqueuedUsec / 1e6))}::float8[]
      ) as n(name, attempt, outcome, http_status, error, response_excerpt, duration_ms, enqueued_s)
    ),
    trimmed as (
      delete from ${attempts} t using n
       where t.queue_id = ${params.queueId} and t.task_name = n.name and t.attempt <= n.attempt - ${ATTEMPTS_KEPT}::int4
    )
    insert into ${attempts} as t (queue_id, task_name, attempt, outcome, http_status, error, response_excerpt, duration_ms)
    select ${params.queueId}::int4, n.name, n.attempt, n.outcome, n.http_status, n.error, n.response_excerpt, n.duration_ms
      from n
     where not exists (
       select 1 from ${attempts} o
        where o.queue_id = ${params.queueId} and o.task_name = n.name and o.attempt = n.attempt
          and o.ended_at >= to_timestamp(n.enqueued_s))
    on conflict (queue_id, task_name, attempt) do update
       set ended_at = excluded.ended_at, outcome = excluded.outcome, http_status = excluded.http_status, error = excluded.error,
           response_excerpt = excluded.response_excerpt, duration_ms = excluded.duration_ms`.execute(ctx.db);
}

/**
 * The lapses of a lease's tasks that the retry limit moved to the dead
 * letters (the lease statement says only how many, `limit`): the last
 * lease of each lapsed (its number is the letter's retry count), unless a
 * row of that number ended after the task was added (its worker reported
 * the failure). The queue's newest letters of the last minute, by the
 * (queue_id, died_at) index, so a few probes; the lease statement itself
 * is left as it is (see lease-tasks.ts), and a concurrent lease's letters
 * found here too are recorded once (the primary key).
 */
export async function recordDeadLetterLapses(
  ctx: StoreContext,
  params: QueueRef & { readonly limit: number },
): Promise<void> {
  const attempts = table(ctx, 'task_attempts');
  const q = params.queueId;
  await sql`/* record_dead_letter_lapses */
    with n as (
      select d.name, d.retry_count as attempt from ${table(ctx, 'task_dead_letters')} d
       where d.queue_id = ${q} and d.died_at >= now() - interval '1 minute' and d.retry_count > 0
         and not exists (
           select 1 from ${attempts} o
            where o.queue_id = ${q} and o.task_name = d.name and o.attempt = d.retry_count and o.ended_at >= d.enqueued_at)
       order by d.died_at desc
       limit ${params.limit}::int4
    ),
    trimmed as (
      delete from ${attempts} t using n
       where t.queue_id = ${q} and t.task_name = n.name and t.attempt <= n.attempt - ${ATTEMPTS_KEPT}::int4
    )
    insert into ${attempts} as t (queue_id, task_name, attempt, outcome)
    select ${q}::int4, n.name, n.attempt, 'lapsed' from n
    on conflict (queue_id, task_name, attempt) do update
       set ended_at = excluded.ended_at, outcome = excluded.outcome, http_status = null, error = null,
           response_excerpt = null, duration_ms = null`.execute(ctx.db);
}

/**
 * The CTEs that record one push attempt inside the statement writing its
 * outcome (push_failed, push_dead_letter): `source` names a CTE returning
 * the task's `name` and `retry_count` (the attempt's number, counted by the
 * claim) when the claim still held. One insert, one probe to trim.
 */
export function pushAttemptCtes(
  tableOf: (name: keyof Database) => RawBuilder<unknown>,
  params: {
    readonly queueId: RawBuilder<unknown>;
    readonly source: string;
    readonly status: number | null;
    readonly error: string;
    readonly responseExcerpt: string | null;
    readonly durationMs: number | null;
  },
): RawBuilder<unknown> {
  const attempts = tableOf('task_attempts');
  const source = sql.ref(params.source);
  return sql`attempt_trimmed as (
      delete from ${attempts} t using ${source} s
       where t.queue_id = ${params.queueId} and t.task_name = s.name and t.attempt <= s.retry_count - ${ATTEMPTS_KEPT}::int4
    ),
    attempt_recorded as (
      insert into ${attempts} (queue_id, task_name, attempt, outcome, http_status, error, response_excerpt, duration_ms)
      select ${params.queueId}::int4, s.name, s.retry_count, 'failed', ${params.status}::int4, ${params.error}::text,
             ${params.responseExcerpt}::text, ${params.durationMs}::int4
        from ${source} s
      on conflict (queue_id, task_name, attempt) do update
         set ended_at = excluded.ended_at, outcome = excluded.outcome, http_status = excluded.http_status, error = excluded.error,
             response_excerpt = excluded.response_excerpt, duration_ms = excluded.duration_ms
    )`;
}

/** A task's (or dead letter's) recorded attempts, newest first: at most ATTEMPTS_KEPT. */
export async function listAttempts(ctx: StoreContext, params: AttemptListParams): Promise<TaskAttempt[]> {
  const result = await sql<AttemptRow>`/* list_task_attempts */
    select attempt, ${usecOf(sql`ended_at`)} as ended_usec, outcome, http_status, error, response_excerpt, duration_ms
      from ${table(ctx, 'task_attempts')}
     where queue_id = ${params.queueId} and task_name = ${params.name}
     order by attempt desc
     limit ${ATTEMPTS_KEPT}::int4`.execute(ctx.db);
  return result.rows.map((row) => ({
    attempt: row.attempt,
    endedUsec: toNumber(row.ended_usec),
    outcome: row.outcome as AttemptOutcome,
    httpStatus: row.http_status,
    error: row.error,
    responseExcerpt: row.response_excerpt,
    durationMs: row.duration_ms,
  }));
}

/**
 * Where the clean-up's sweep of attempts stopped, per queue (or `all`): the
 * end time (microseconds) of the last attempt it looked at. Kept by the
 * store between runs, in memory: a restart sweeps from the start again.
 */
export type AttemptSweep = Map<string, number>;

/** Statements per clean-up run: each looks at `batchSize` attempts at most, so a run looks at ten batches. */
const SWEEP_STATEMENTS = 10;

/**
 * The cleanup job's share: attempts whose task is neither live nor a dead
 * letter (delivered, deleted, purged, or its dead letter removed). Bounded,
 * not an anti-join over the whole table: each statement takes the next
 * `batchSize` attempts by end time after where the sweep stopped (the
 * ended_at index), probes tasks and dead letters by primary key for those
 * only, and deletes the orphans among them; a run goes SWEEP_STATEMENTS
 * batches on, and the sweep starts over once it reaches the newest. So a
 * run costs the same with a million attempts of live tasks as with none,
 * and an orphan waits at most one lap (attempts / (10 x batchSize) runs).
 * Attempts that end at the very instant a batch stopped at are looked at
 * on the next lap. Returns how many went.
 */
export async function cleanupAttempts(
  ctx: StoreContext,
  params: { readonly batchSize: number },
  sweep: AttemptSweep,
  queueId: number | null = null,
): Promise<number> {
  const key = queueId === null ? 'all' : String(queueId);
  // One queue at a time on Citus (rows lock only within one shard), else all.
  // Every table of each statement is restricted to the queue by value, so
  // Citus routes the statement (and its row locks) to the queue's shard.
  const queue = queueId === null ? sql`` : sql`and a.queue_id = ${queueId}::int4`;
  const taskQueue = queueId === null ? sql`` : sql`and t.queue_id = ${queueId}::int4`;
  const letterQueue = queueId === null ? sql`` : sql`and d.queue_id = ${queueId}::int4`;
  const attempts = table(ctx, 'task_attempts');
  let removed = 0;
  for (let i = 0; i < SWEEP_STATEMENTS; i++) {
    const from = sweep.get(key);
    const after = from === undefined ? sql`` : sql`and a.ended_at > ${timestampFromUsec(from)}`;
    // MATERIALIZED: the batch is chosen once (see lease-tasks.ts on #15715); only orphans are locked.
    const result = await sql<{ examined: unknown; removed: unknown; last_usec: unknown }>`/* cleanup_task_attempts */
      with swept as materialized (
        select a.queue_id, a.task_name, a.attempt, a.ended_at from ${attempts} a
         where true ${after} ${queue}
         order by a.ended_at
         limit ${params.batchSize}::int4
      ),
      doomed as materialized (
        select a.queue_id, a.task_name, a.attempt from ${attempts} a
          join swept s on s.queue_id = a.queue_id and s.task_name = a.task_name and s.attempt = a.attempt
         where true ${queue}
           and not exists (select 1 from ${table(ctx, 'tasks')} t where t.queue_id = a.queue_id and t.name = a.task_name ${taskQueue})
           and not exists (select 1 from ${table(ctx, 'task_dead_letters')} d where d.queue_id = a.queue_id and d.name = a.task_name ${letterQueue})
           for update of a skip locked
      ),
      gone as (
        delete from ${attempts} a using doomed d
         where a.queue_id = d.queue_id and a.task_name = d.task_name and a.attempt = d.attempt ${queue}
        returning 1
      )
      select (select count(*) from swept) as examined, (select count(*) from gone) as removed,
             (select ${usecOf(sql`max(ended_at)`)} from swept) as last_usec`.execute(ctx.db);
    const row = result.rows[0];
    removed += toNumber(row?.removed);
    if (toNumber(row?.examined) < params.batchSize || row?.last_usec === null || row?.last_usec === undefined) {
      // The newest attempt was reached: the next run starts from the oldest.
      sweep.delete(key);
      return removed;
    }
    sweep.set(key, toNumber(row.last_usec));
  }
  return removed;
}
