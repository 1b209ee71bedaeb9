import { sql, type RawBuilder } from 'kysely';
import { QueueError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import type { LeaseResult, TagFilter, TaskLeaseParams } from '../core/task-store.js';
import type { Database } from './schema.js';
import { intervalFromMs, table, toNumber, usecOf, type StoreContext } from './store-context.js';
import { taskFromRow, type TaskRow } from './task-row.js';

/**
 * Leases up to `maxTasks` tasks in ONE statement. The steps, each a CTE:
 *
 * 0. `queue_state`: whether the queue is paused (sql/0008), read in the
 *    same statement so the pause costs no round trip. A paused queue picks
 *    nothing and counts no lease call.
 * 1. `permit` (rate-limited queues only): counts this call in the queue's
 *    current fixed window, shared by every process; past the limit the call
 *    picks nothing.
 * 2. `picked`: the oldest leasable tasks (eta <= now()), FOR UPDATE SKIP
 *    LOCKED so concurrent leasers take disjoint rows. It is MATERIALIZED on
 *    purpose: PostgreSQL may re-run an `IN (SELECT ... SKIP LOCKED LIMIT n)`
 *    sub-select once per outer row, and each re-run skips the rows already
 *    locked and returns the NEXT n (bug #15715, hit by Oban and pg-boss).
 *    A materialized CTE runs exactly once. The ORDER BY matches the index
 *    (queue_id, eta), so LIMIT stops after n rows without a sort. "Group
 *    by tag" without a tag first locks the oldest leasable task (`oldest`)
 *    and picks the tasks that share its tag, or its lack of one, in the
 *    same statement (no round trip to learn the tag first).
 * 3. `exhausted` (queues with a retry limit only): tasks already leased
 *    `max_leases` times are marked (eta '-infinity'); the UPDATE's trigger
 *    deletes them, tombstones their names with reason 'retry_limit' and
 *    keeps the tasks themselves (payload, tag, retry count, enqueue time) in
 *    task_dead_letters (dead-letter-move.ts's rule). They are never returned.
 * 4. `fitting`: the prefix of the picked tasks whose payloads fit the
 *    budget (32 MB in-process, 1 MB over REST); the rest stay available,
 *    untouched. (Skipped when maxTasks tasks of the largest size fit.)
 * 5. `leased`: eta moves to now() + lease (time from the database, never
 *    from Node), retry_count goes up by one.
 *
 * The queue's leasedLastMinute/Hour statistics get their row from the
 * UPDATE's statement trigger (sql/routines/tasks_after_lease.sql), as the
 * dead letters do, not from an INSERT step here: on Citus a statement with no INSERT step, every step
 * keyed by `queue_id`, is sent whole to the one worker that holds the queue
 * (one command, no two-phase commit), and one with an INSERT step is cut
 * into subplans that reach every worker.
 *
 * The result is the leased tasks, each row also carrying the queue's paused
 * flag and the number of tasks dead-lettered; with no task leased, one row
 * of just those two (the outer join from the one-row `outcome`).
 */
export async function leaseTasks(ctx: StoreContext, params: TaskLeaseParams): Promise<LeaseResult> {
  const result = await leaseQuery(ctx, params).execute(ctx.db);
  const first = result.rows[0];
  const taskRows = result.rows.filter((row): row is LeaseRow & TaskRow => row.name !== null);
  // The invariant the MATERIALIZED CTE exists for, checked where it is made:
  // combined leases deal this result out by position, so an over-long result
  // would otherwise be cut off silently instead of being seen.
  if (taskRows.length > params.maxTasks) {
    throw new QueueError(
      'INTERNAL_ERROR',
      `a lease of at most ${params.maxTasks} tasks returned ${taskRows.length}; their leases expire on their own`,
      { queue: params.queueName },
    );
  }
  return {
    tasks: taskRows.map((row) => taskFromRow(params.queueName, row)),
    paused: first?.paused === true,
    deadLettered: toNumber(first?.dead_lettered),
  };
}

/** The service's lease statement for these terms, its values bound. */
export function leaseQuery(ctx: StoreContext, params: TaskLeaseParams): RawBuilder<LeaseRow> {
  const terms = leaseTermsOf(params);
  const values = {} as Record<keyof LeaseValues, RawBuilder<unknown>>;
  for (const term of Object.keys(terms) as (keyof LeaseTerms)[]) values[term] = sql`${terms[term]}`;
  return leaseStatement((name) => table(ctx, name), leaseShapeOf(params), values);
}

/**
 * What decides a lease statement's text: the CTEs it needs. The service
 * prepares one statement per shape (a generic plan each); the SQL API's
 * lease_tasks has one branch per shape, generated from this same builder
 * (sql-api-functions.ts).
 */
export interface LeaseShape {
  /** The queue has a lease rate: the `permit` CTE. */
  readonly rate: boolean;
  /** The queue has a retry limit: the dead-letter CTEs. */
  readonly maxLeases: boolean;
  readonly filter: TagFilter['kind'];
  /** maxTasks tasks of the largest size would not fit the budget: the running sum. */
  readonly budgetBinds: boolean;
}

/** The values a lease statement binds, as fragments: bound parameters for the service, PL/pgSQL variables for lease_tasks. */
export interface LeaseValues {
  readonly queueId: RawBuilder<unknown>;
  readonly maxTasks: RawBuilder<unknown>;
  /** The lease, in milliseconds. */
  readonly leaseMs: RawBuilder<unknown>;
  readonly rateWindowSeconds: RawBuilder<unknown>;
  readonly rateCalls: RawBuilder<unknown>;
  readonly maxLeases: RawBuilder<unknown>;
  readonly payloadBudgetBytes: RawBuilder<unknown>;
  /** The tag of a `tag` filter. */
  readonly tag: RawBuilder<unknown>;
}

/**
 * The values the service binds for a lease, one per LeaseValues term (a
 * term added there is a compile error here until it is given a value): the
 * service binds exactly these, and a combined lease's key is made of them
 * (combined-statements.ts), so no term can be bound without being compared.
 */
export type LeaseTerms = { readonly [Term in keyof LeaseValues]: number | string | null };

export function leaseTermsOf(params: TaskLeaseParams): LeaseTerms {
  const rate = params.leaseRate;
  return {
    queueId: params.queueId,
    maxTasks: params.maxTasks,
    leaseMs: params.leaseMs,
    rateWindowSeconds: rate?.windowSeconds ?? null,
    rateCalls: rate?.calls ?? null,
    maxLeases: params.maxLeases,
    payloadBudgetBytes: params.payloadBudgetBytes,
    tag: params.filter.kind === 'tag' ? params.filter.tag : null,
  };
}

/**
 * The one definition of "the budget can bind": the most tasks of the
 * largest size (LIMITS.maxTaskBytes) that `payloadBudgetBytes` always
 * holds. A lease of more tasks needs the running sum, which may leave some
 * out; a lease of at most this many never does, and may share a statement
 * (combined-statements.ts). lease_tasks compares its max_tasks with this
 * number for its own budget (sql-api-functions.ts).
 */
export function tasksAlwaysFitting(payloadBudgetBytes: number): number {
  return Math.floor(payloadBudgetBytes / LIMITS.maxTaskBytes);
}

/** The shape of the statement a lease with these terms runs. */
export function leaseShapeOf(params: TaskLeaseParams): LeaseShape {
  return {
    rate: params.leaseRate !== null,
    maxLeases: params.maxLeases !== null,
    filter: params.filter.kind,
    budgetBinds: params.maxTasks > tasksAlwaysFitting(params.payloadBudgetBytes),
  };
}

/**
 * The lease statement of one shape, the one definition of the lease's
 * rules (pause, rate, retry limit and dead letters, payload budget,
 * statistics): the service runs it with bound values, and the SQL API's
 * lease_tasks is generated from it with its own variables (a change here
 * fails test/sql-api/generated-functions.test.ts until a migration carries
 * the new text).
 */
export function leaseStatement(
  tableOf: (name: keyof Database) => RawBuilder<unknown>,
  shape: LeaseShape,
  v: LeaseValues,
): RawBuilder<LeaseRow> {
  const tasks = tableOf('tasks');
  const q = v.queueId;
  const ctes: RawBuilder<unknown>[] = [];
  ctes.push(sql`queue_state as materialized (
    select coalesce((select paused from ${tableOf('queues')} where id = ${q}), false) as paused
  )`);
  let permitted: RawBuilder<unknown> = sql`and not (select paused from queue_state)`;
  if (shape.rate) {
    ctes.push(sql`permit as (
      insert into ${tableOf('lease_rate_windows')} as w (queue_id, window_start, calls)
      select ${q}, floor(extract(epoch from now()) / ${v.rateWindowSeconds}::int4)::int8, 1
       where not (select paused from queue_state)
      on conflict (queue_id) do update
        set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
            window_start = excluded.window_start
      returning calls <= ${v.rateCalls}::int4 as allowed
    )`);
    // No permit row (paused) compares as null: nothing is picked.
    permitted = sql`and (select allowed from permit)`;
  }

  const pick = (name: string, condition: RawBuilder<unknown>) =>
    sql`${sql.raw(name)} as materialized (
    select name, eta, retry_count, octet_length(payload) as payload_bytes
      from ${tasks}
     where queue_id = ${q} and eta <= now() ${condition} ${permitted}
     order by eta
     limit ${v.maxTasks}::int4
       for update skip locked
  )`;
  if (shape.filter === 'oldest') {
    // Group by the oldest task's tag: `oldest` finds (and locks) it; one
    // branch takes its tag through tasks_tag_lease_idx, the other, when it
    // is untagged, untagged tasks in eta order. Only one branch finds rows.
    ctes.push(sql`oldest as materialized (
    select tag from ${tasks}
     where queue_id = ${q} and eta <= now() ${permitted}
     order by eta
     limit 1
       for update skip locked
  )`);
    ctes.push(pick('picked_tagged', sql`and tag = (select tag from oldest)`));
    ctes.push(pick('picked_untagged', sql`and tag is null and (select tag is null from oldest)`));
    ctes.push(sql`picked as materialized (select * from picked_tagged union all select * from picked_untagged)`);
  } else {
    ctes.push(pick('picked', shape.filter === 'tag' ? sql`and tag = ${v.tag}` : sql``));
  }

  let live: RawBuilder<unknown> = sql``;
  let deadLettered: RawBuilder<unknown> = sql`0`;
  if (shape.maxLeases) {
    // Marked, not moved: the UPDATE's trigger (sql/routines/tasks_after_lease.sql)
    // moves the marked tasks to the dead letters and deletes them, so the
    // statement has no INSERT step (see above).
    ctes.push(sql`exhausted as (
      update ${tasks} t
         set eta = '-infinity'
        from picked p
       where t.queue_id = ${q} and t.name = p.name and p.retry_count >= ${v.maxLeases}::int4
      returning 1
    )`);
    live = sql`where retry_count < ${v.maxLeases}::int4`;
    deadLettered = sql`(select count(*) from exhausted)`;
  }

  if (shape.budgetBinds) {
    ctes.push(sql`fitting as (
      select name, eta from (
        select name, eta,
               sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
          from picked ${live}
      ) f
      where running_bytes <= ${v.payloadBudgetBytes}::int8
    )`);
  } else {
    ctes.push(sql`fitting as (select name, eta from picked ${live})`);
  }

  ctes.push(sql`leased as (
    update ${tasks} t
       set eta = now() + ${intervalFromMs(v.leaseMs)},
           retry_count = t.retry_count + 1
      from fitting f
     where t.queue_id = ${q} and t.name = f.name
    returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
  )`);

  ctes.push(sql`outcome as (
    select (select paused from queue_state) as paused, ${deadLettered}::int8 as dead_lettered
  )`);

  return sql<LeaseRow>`/* lease_tasks */
    with ${sql.join(ctes, sql`,\n`)}
    select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
           ${usecOf(sql`l.eta`)} as eta_usec, ${usecOf(sql`l.enqueued_at`)} as enqueued_usec
      from outcome o left join leased l on true
     order by l.available_at`;
}

/** A row of the lease statement: a leased task (name null when none) and the outcome's columns. */
export type LeaseRow = Omit<TaskRow, 'name'> & { name: string | null; paused: boolean; dead_lettered: unknown };
