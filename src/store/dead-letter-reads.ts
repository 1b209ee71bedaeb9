import { sql } from 'kysely';
import type { DeadLetter } from '../core/dead-letter.js';
import type { DeadLetterListParams, TaskRef } from '../core/task-store.js';
import { deadLetterFilter } from './dead-letter-filter.js';
import { deadLetterOf, type DeadLetterRow } from './dead-letters.js';
import { table, toNumber, usecOf, type StoreContext } from './store-context.js';

/** One dead letter by its name (the table's primary key), or null. */
export async function getDeadLetter(ctx: StoreContext, params: TaskRef): Promise<DeadLetter | null> {
  const result = await sql<DeadLetterRow>`/* get_dead_letter */
    select name, tag, payload, retry_count, last_error,
           ${usecOf(sql`enqueued_at`)} as enqueued_usec, ${usecOf(sql`died_at`)} as died_usec
      from ${table(ctx, 'task_dead_letters')}
     where queue_id = ${params.queueId} and name = ${params.name}`.execute(ctx.db);
  const row = result.rows[0];
  return row === undefined ? null : deadLetterOf(row, params.queueName);
}

/**
 * How many of a queue's dead letters match a filter, counting no further
 * than `cap`: the figure a bulk action on "all matching" is confirmed by,
 * read without walking a million rows to say "more than 10,000".
 */
export async function countDeadLetters(
  ctx: StoreContext,
  params: DeadLetterListParams & { readonly cap: number },
): Promise<number> {
  const result = await sql<{ n: unknown }>`/* count_dead_letters */
    select count(*) as n from (
      select 1 from ${table(ctx, 'task_dead_letters')}
       where queue_id = ${params.queueId} ${deadLetterFilter(params)}
       limit ${params.cap}::int4
    ) matching`.execute(ctx.db);
  return toNumber(result.rows[0]?.n);
}
