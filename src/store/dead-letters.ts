import { sql } from 'kysely';
import type { DeadLetter } from '../core/dead-letter.js';
import type { DeadLetterDeleteParams, DeadLetterListParams, QueueRef } from '../core/task-store.js';
import { auditedCte } from './audit-row.js';
import { deadLetterFilter } from './dead-letter-filter.js';
import { table, timestampFromUsec, toBuffer, toNumber, usecOf, type StoreContext } from './store-context.js';

export interface DeadLetterRow {
  name: string;
  tag: string | null;
  payload: Uint8Array;
  retry_count: number;
  enqueued_usec: unknown;
  died_usec: unknown;
  last_error: string | null;
}

/**
 * A queue's dead letters (sql/0008), oldest death first (or newest), a page
 * at a time: keyset pagination on (died_at, name), served by the index of
 * that shape (read backwards for newest first). The filters of
 * dead-letter-filter.ts narrow the rows the index walk finds.
 */
export async function listDeadLetters(ctx: StoreContext, params: DeadLetterListParams): Promise<DeadLetter[]> {
  const newest = params.newestFirst === true;
  const after = params.after
    ? newest
      ? sql`and (died_at, name) < (${timestampFromUsec(params.after.diedUsec)}, ${params.after.name})`
      : sql`and (died_at, name) > (${timestampFromUsec(params.after.diedUsec)}, ${params.after.name})`
    : sql``;
  const order = newest ? sql`died_at desc, name desc` : sql`died_at, name`;
  const result = await sql<DeadLetterRow>`/* list_dead_letters */
    select name, tag, payload, retry_count, last_error,
           ${usecOf(sql`enqueued_at`)} as enqueued_usec, ${usecOf(sql`died_at`)} as died_usec
      from ${table(ctx, 'task_dead_letters')}
     where queue_id = ${params.queueId} ${after} ${deadLetterFilter(params)}
     order by ${order}
     limit ${params.limit}::int4`.execute(ctx.db);
  return result.rows.map((row) => deadLetterOf(row, params.queueName));
}

export function deadLetterOf(row: DeadLetterRow, queueName: string): DeadLetter {
  return {
    name: row.name,
    queueName,
    payload: toBuffer(row.payload),
    tag: row.tag,
    retryCount: row.retry_count,
    enqueuedUsec: toNumber(row.enqueued_usec),
    diedUsec: toNumber(row.died_usec),
    lastError: row.last_error,
  };
}

/**
 * Puts up to `batchSize` dead letters back as new tasks, in one statement:
 * takes them out of task_dead_letters, removes their names' tombstones, and
 * inserts them into tasks (ETA now, retry count 0, the same payload, tag and
 * push request).
 * The insert trigger of sql/0007 runs after the whole statement, so it sees
 * the tombstones gone, and it checks the storage limits like any add (the
 * statement fails as a whole when they would be exceeded). A name that is
 * live again fails the statement with a unique violation (TASK_ALREADY_EXISTS).
 * `names` null = any of the queue's. Returns the names that went back.
 */
export async function redriveDeadLetters(
  ctx: StoreContext,
  params: QueueRef & { readonly names: readonly string[] | null; readonly batchSize: number },
): Promise<string[]> {
  const q = params.queueId;
  const named = params.names === null ? sql`` : sql`and name = any(${[...params.names]}::text[])`;
  // MATERIALIZED: the batch is chosen once (see lease-tasks.ts on #15715).
  const result = await sql<{ name: string }>`/* redrive_dead_letters */
    with picked as materialized (
      select name from ${table(ctx, 'task_dead_letters')}
       where queue_id = ${q} ${named}
       order by died_at, name
       limit ${params.batchSize}::int4
         for update skip locked
    ),
    revived as (
      delete from ${table(ctx, 'task_dead_letters')} d using picked p
       where d.queue_id = ${q} and d.name = p.name
      returning d.name, d.tag, d.payload, d.push
    ),
    freed as (
      delete from ${table(ctx, 'task_tombstones')} t using revived r
       where t.queue_id = ${q} and t.name = r.name
    ),
    inserted as (
      insert into ${table(ctx, 'tasks')} (queue_id, name, eta, tag, payload, push)
      select ${q}::int4, name, now(), tag, payload, push from revived
      returning name
    )
    select name from inserted`.execute(ctx.db);
  return result.rows.map((row) => row.name);
}

/**
 * Deletes named dead letters for good (an operator's clean-up of letters
 * that should never run again), in one statement with its audit entry,
 * which counts the letters deleted. Their tombstones are left: the names
 * stay held for the rest of the retention period. Returns the names of those there were.
 */
export async function deleteDeadLetters(ctx: StoreContext, params: DeadLetterDeleteParams): Promise<string[]> {
  const result = await sql<{ name: string }>`/* delete_dead_letters */
    with deleted as (
      delete from ${table(ctx, 'task_dead_letters')}
       where queue_id = ${params.queueId} and name = any(${[...params.names]}::text[])
      returning name
    )${auditedCte(ctx, params.audit, 'deleted')}
    select name from deleted`.execute(ctx.db);
  return result.rows.map((row) => row.name);
}
