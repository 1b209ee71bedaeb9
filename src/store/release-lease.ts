import { sql } from 'kysely';
import type { ReleaseLeaseParams, ReleaseResult } from '../core/task-store.js';
import { auditedCte } from './audit-row.js';
import { table, usecOf, type StoreContext } from './store-context.js';
import { taskFromRow, type TaskRow } from './task-row.js';

/**
 * An administrator's release: ends the lease on a task whoever holds it (no
 * lease token), making it available at once with its retry count unchanged,
 * exactly like a holder's modifyTaskLease(0). A task that is not leased
 * (available, or delayed and never leased) is returned unchanged, with
 * `released` false. Null when the task is not live. The audit entry, when
 * given, is written by the same statement and counts the tasks released (0
 * or 1); none when the task is not live (the call fails).
 */
export async function releaseLease(ctx: StoreContext, params: ReleaseLeaseParams): Promise<ReleaseResult | null> {
  const tasks = table(ctx, 'tasks');
  const result = await sql<TaskRow & { released: boolean }>`/* release_lease */
    with released as (
      update ${tasks}
         set eta = now()
       where queue_id = ${params.queueId} and name = ${params.name} and eta > now() and retry_count > 0
      returning name, tag, payload, retry_count, last_error, eta, enqueued_at
    )${auditedCte(ctx, params.audit, 'released', sql`exists (select 1 from ${tasks} where queue_id = ${params.queueId} and name = ${params.name})`)}
    select name, tag, payload, retry_count, last_error, ${usecOf(sql`eta`)} as eta_usec, ${usecOf(sql`enqueued_at`)} as enqueued_usec, true as released
      from released
    union all
    select name, tag, payload, retry_count, last_error, ${usecOf(sql`eta`)} as eta_usec, ${usecOf(sql`enqueued_at`)} as enqueued_usec, false as released
      from ${tasks}
     where queue_id = ${params.queueId} and name = ${params.name} and not exists (select 1 from released)`.execute(
    ctx.db,
  );
  const row = result.rows[0];
  return row ? { task: taskFromRow(params.queueName, row), released: row.released === true } : null;
}
