import { sql } from 'kysely';
import type { CleanupParams, CleanupResult } from '../core/task-store.js';
import { intervalFromMs, table, type StoreContext } from './store-context.js';
import { cleanupAttempts, type AttemptSweep } from './task-attempts.js';

/**
 * Drops tombstones and dead letters past their retention periods, lease
 * history older than an hour and the attempts of tasks gone, a batch per
 * statement (oldest first, by index) so no statement holds locks or bloats WAL for long. Several processes may run it at once; they
 * just share the work.
 */
export async function cleanup(ctx: StoreContext, params: CleanupParams, sweep: AttemptSweep): Promise<CleanupResult> {
  // Citus locks rows only in a statement on one shard: there, a queue at a time.
  const queues = await queuesOnCitus(ctx);
  if (queues === null) return cleanupRows(ctx, params, sweep, null);
  const total = { tombstonesRemoved: 0, deadLettersRemoved: 0, historyRemoved: 0, attemptsRemoved: 0 };
  for (const id of queues) {
    const done = await cleanupRows(ctx, params, sweep, id);
    total.tombstonesRemoved += done.tombstonesRemoved;
    total.deadLettersRemoved += done.deadLettersRemoved;
    total.historyRemoved += done.historyRemoved;
    total.attemptsRemoved += done.attemptsRemoved;
  }
  return total;
}

/** The queues' ids where the database is a Citus coordinator, else null. */
async function queuesOnCitus(ctx: StoreContext): Promise<number[] | null> {
  const result = await sql<{ citus: boolean; ids: number[] | null }>`/* cleanup_citus_queues */
    select exists (select 1 from pg_catalog.pg_extension where extname = 'citus') as citus,
           (select array_agg(id order by id) from ${table(ctx, 'queues')}
             where exists (select 1 from pg_catalog.pg_extension where extname = 'citus')) as ids`.execute(ctx.db);
  const row = result.rows[0];
  return row?.citus === true ? (row.ids ?? []) : null;
}

/** The clean-up's statements, over every queue or one (`queueId`, on Citus). */
async function cleanupRows(
  ctx: StoreContext,
  params: CleanupParams,
  sweep: AttemptSweep,
  queueId: number | null,
): Promise<CleanupResult> {
  const queue = queueId === null ? sql`` : sql`and queue_id = ${queueId}::int4`;
  let tombstonesRemoved = 0;
  for (;;) {
    // MATERIALIZED: the batch is chosen once (see lease-tasks.ts on #15715).
    const result = await sql`/* cleanup_tombstones */
      with doomed as materialized (
        select queue_id, name from ${table(ctx, 'task_tombstones')}
         where deleted_at < now() - ${intervalFromMs(params.tombstoneRetentionMs)} ${queue}
         order by deleted_at
         limit ${params.batchSize}::int4
           for update skip locked
      )
      delete from ${table(ctx, 'task_tombstones')} t
       using doomed d
       where t.queue_id = d.queue_id and t.name = d.name`.execute(ctx.db);
    const removed = Number(result.numAffectedRows ?? 0n);
    tombstonesRemoved += removed;
    if (removed < params.batchSize) break;
  }
  let deadLettersRemoved = 0;
  for (;;) {
    const result = await sql`/* cleanup_dead_letters */
      with doomed as materialized (
        select queue_id, name from ${table(ctx, 'task_dead_letters')}
         where died_at < now() - ${intervalFromMs(params.deadLetterRetentionMs)} ${queue}
         order by died_at
         limit ${params.batchSize}::int4
           for update skip locked
      )
      delete from ${table(ctx, 'task_dead_letters')} d
       using doomed x
       where d.queue_id = x.queue_id and d.name = x.name`.execute(ctx.db);
    const removed = Number(result.numAffectedRows ?? 0n);
    deadLettersRemoved += removed;
    if (removed < params.batchSize) break;
  }
  const history = await sql`/* cleanup_lease_history */
    delete from ${table(ctx, 'lease_history')} where leased_at < now() - interval '1 hour' ${queue}`.execute(ctx.db);
  // After the dead letters: the attempts of those just removed go in the same run.
  const attemptsRemoved = await cleanupAttempts(ctx, params, sweep, queueId);
  return {
    tombstonesRemoved,
    deadLettersRemoved,
    historyRemoved: Number(history.numAffectedRows ?? 0n),
    attemptsRemoved,
  };
}
