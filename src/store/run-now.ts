import { sql } from 'kysely';
import { AUDIT_NAMES_KEPT, type AuditIntent } from '../core/audit-log.js';
import type { RunNowParams, RunNowResult } from '../core/task-attempt.js';
import { auditedCte } from './audit-row.js';
import { table, toNumber, type StoreContext } from './store-context.js';

/** The channel the add trigger notifies (sql/routines/tasks_after_insert.sql): waiting leases and dispatchers listen on it. */
const CHANNEL = 'taskqueue_tasks';

/**
 * Makes tasks due now: their ETA becomes the database's now(). A delayed
 * task is available at once, a leased pull task's lease ends (its holder's
 * token no longer matches, as with an administrator's release), a push task
 * waiting out its backoff is claimed at the dispatcher's next turn. A push
 * task in flight is left to its delivery; a task already due is left as it
 * is. The queue's channel is notified in the same statement, so a
 * dispatcher or long-poll asleep on the queue wakes now, not at the old ETA.
 * Names: one statement, with its audit entry. A filter: a batch per
 * statement (oldest ETA first), the entry written by the caller.
 */
export async function runNow(
  ctx: StoreContext,
  params: RunNowParams & { readonly audit?: AuditIntent },
): Promise<RunNowResult> {
  const tasks = table(ctx, 'tasks');
  const q = params.queueId;
  const notInFlight = params.push ? sql`and dispatched_at is null` : sql``;
  const notify = sql`notified as (
      select pg_notify(${CHANNEL}, ${ctx.schema}::text || ':' || ${q}::text) from (select 1 from made_due limit 1) x
    )`;
  if ('names' in params.selection) {
    const result = await sql<{ name: string }>`/* run_tasks_now */
      with made_due as (
        update ${tasks} set eta = now()
         where queue_id = ${q} and name = any(${[...params.selection.names]}::text[]) and eta > now() ${notInFlight}
        returning name
      ), ${notify}${auditedCte(ctx, params.audit, 'made_due')}
      select name from made_due, (select count(*) from notified) n`.execute(ctx.db);
    const names = result.rows.map((row) => row.name);
    return { count: names.length, names };
  }
  const filter = params.selection.filter;
  const state =
    filter.state === 'leased'
      ? sql`and retry_count > 0`
      : filter.state === 'delayed'
        ? sql`and retry_count = 0`
        : sql``;
  const tag =
    filter.tag === undefined ? sql`` : filter.tag === null ? sql`and tag is null` : sql`and tag = ${filter.tag}`;
  if (params.selection.dryRun === true) {
    const counted = await sql<{ n: unknown }>`/* count_runnable_tasks */
      select count(*) as n from (
        select 1 from ${tasks}
         where queue_id = ${q} and eta > now() ${state} ${tag} ${notInFlight}
         limit ${params.maxTasks}::int4
      ) x`.execute(ctx.db);
    return { count: toNumber(counted.rows[0]?.n), names: [] };
  }
  let count = 0;
  const names: string[] = [];
  for (;;) {
    // MATERIALIZED: the batch is chosen once (see lease-tasks.ts on #15715).
    const result = await sql<{ name: string }>`/* run_matching_tasks_now */
      with picked as materialized (
        select name from ${tasks}
         where queue_id = ${q} and eta > now() ${state} ${tag} ${notInFlight}
         order by eta
         limit ${params.batchSize}::int4
           for update skip locked
      ),
      made_due as (
        update ${tasks} t set eta = now() from picked p
         where t.queue_id = ${q} and t.name = p.name
        returning t.name
      ), ${notify}
      select name from made_due, (select count(*) from notified) n`.execute(ctx.db);
    count += result.rows.length;
    for (const row of result.rows) if (names.length < AUDIT_NAMES_KEPT) names.push(row.name);
    // A task leased again while this runs would be picked again: the cap ends it.
    if (result.rows.length < params.batchSize || count >= params.maxTasks) return { count, names };
  }
}
