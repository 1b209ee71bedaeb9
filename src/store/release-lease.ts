import { sql } from 'kysely';
import type { Task } from '../core/task.js';
import type { TaskRef } from '../core/task-store.js';
import { table, usecOf, type StoreContext } from './store-context.js';
import { taskFromRow, type TaskRow } from './task-row.js';

/**
 * An administrator's release: ends the lease on a task whoever holds it (no
 * lease token), making it available at once with its retry count unchanged,
 * exactly like a holder's modifyTaskLease(0). A task that is not leased
 * (available, or delayed and never leased) is returned unchanged. Null when
 * the task is not live.
 */
export async function releaseLease(ctx: StoreContext, params: TaskRef): Promise<Task | null> {
  const tasks = table(ctx, 'tasks');
  const result = await sql<TaskRow>`/* release_lease */
    with released as (
      update ${tasks}
         set eta = now()
       where queue_id = ${params.queueId} and name = ${params.name} and eta > now() and retry_count > 0
      returning name, tag, payload, retry_count, eta, enqueued_at
    )
    select name, tag, payload, retry_count, ${usecOf(sql`eta`)} as eta_usec, ${usecOf(sql`enqueued_at`)} as enqueued_usec
      from released
    union all
    select name, tag, payload, retry_count, ${usecOf(sql`eta`)} as eta_usec, ${usecOf(sql`enqueued_at`)} as enqueued_usec
      from ${tasks}
     where queue_id = ${params.queueId} and name = ${params.name} and not exists (select 1 from released)`.execute(ctx.db);
  const row = result.rows[0];
  return row ? taskFromRow(params.queueName, row) : null;
}
