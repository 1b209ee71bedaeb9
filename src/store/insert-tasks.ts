import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { QueueError } from '../core/errors.js';
import type { Task } from '../core/task.js';
import type { TaskInsertParams } from '../core/task-store.js';
import { LIMITS } from '../core/limits.js';
import { runnerFor, type QueryRunner } from './external-transaction.js';
import { addStatement } from './add-statement.js';
import { routine, table, toBuffer, toNumber, type StoreContext } from './store-context.js';

/**
 * Adds a batch of tasks in one statement, all or nothing: the add statement
 * (add-statement.ts, the same one the SQL API's add_tasks runs) refuses a
 * task whose ETA lies beyond the horizon on the database's clock, a name
 * given twice, held by its form or live; its trigger (sql/0007) refuses
 * tombstoned names and keeps the storage limits, so they hold for any
 * writer. Refusals come back as SQLSTATEs of the SQL API (translate-error.ts).
 */
export async function insertTasks(ctx: StoreContext, params: TaskInsertParams): Promise<Task[]> {
  if (params.tasks.length === 0) return [];
  const tasks = params.tasks;
  const n = tasks.length;
  const names = new Array<string>(n);
  const tags = new Array<string | null>(n);
  const payloadStarts = new Array<number>(n);
  const payloadLengths = new Array<number>(n);
  const etaSeconds = new Array<number | null>(n);
  const etaMicros = new Array<number | null>(n);
  // A delay as whole microseconds, so the ETA Node hands back is the one the
  // database stored, to the microsecond (see below).
  const delayUsec = new Array<number>(n);
  // Push requests as JSON text (null for pull tasks); only bound when the batch has one.
  const pushes = new Array<string | null>(n);
  let anyPush = false;
  // Whether the caller chose each name (bound only when some did and some did not).
  const given = new Array<boolean>(n);
  let namedCount = 0;
  let anyTag = false;
  let anyEta = false;
  let anyDelay = false;
  let offset = 0;
  for (let i = 0; i < n; i++) {
    const t = tasks[i]!;
    names[i] = t.name;
    given[i] = t.named === true;
    if (t.named === true) namedCount++;
    tags[i] = t.tag;
    payloadStarts[i] = offset + 1;
    payloadLengths[i] = t.payload.byteLength;
    offset += t.payload.byteLength;
    delayUsec[i] = Math.round(t.delayMs * 1000);
    if (t.tag !== null) anyTag = true;
    if (delayUsec[i] !== 0) anyDelay = true;
    pushes[i] = t.push ? JSON.stringify(t.push) : null;
    if (t.push) anyPush = true;
    if (t.etaUsec === null) {
      etaSeconds[i] = null;
      etaMicros[i] = null;
    } else {
      const seconds = Math.floor(t.etaUsec / 1_000_000);
      etaSeconds[i] = seconds;
      etaMicros[i] = t.etaUsec - seconds * 1_000_000;
      anyEta = true;
    }
  }
  // The payloads travel as ONE bytea, in binary, cut apart by the statement:
  // a bytea[] goes as text, every byte as two hex digits, and writing those
  // bytes to the socket was the largest single cost of an add in Node.
  const payloads = n === 1 ? tasks[0]!.payload : Buffer.concat(tasks.map((t) => t.payload));
  // One array per column: the statement text is the same for every batch,
  // so the server parses a small statement instead of one with 6 bound
  // values per task. It answers with ONE row (how many rows went in, and
  // now()) instead of a row per task: every column of a new task is known
  // from its input and now() (an explicit ETA as given, else now() plus its
  // delay and FIFO offset; enqueued at now(); retry count 0), and reading
  // back 100 rows cost Node more than building them.
  // A column with nothing in it (no tags, no explicit ETAs, no delays, every
  // name given or none: the common add) is bound as NULL instead of an
  // array of NULLs or zeros: unnest pads it with NULLs, and pg serialises
  // every array element as text, which was the next cost of an add in Node
  // after the payloads.
  const named = namedCount > 0;
  const pushInput = anyPush ? sql`, ${pushes}::text[]` : sql``;
  const pushName = anyPush ? sql`, push` : sql``;
  const givenInput = named ? sql`, ${namedCount === n ? null : given}::bool[]` : sql``;
  const givenName = named ? sql`, given` : sql``;
  const input = sql`/* insert_tasks_input */ select name, tag${anyPush ? sql`, push::jsonb as push` : sql``}${named ? sql`, coalesce(given, true) as given` : sql``},
             substring(${payloads}::bytea from payload_start for payload_length) as payload,
             -- An explicit ETA exactly (seconds and microseconds apart, see
             -- timestampFromUsec); else now() + delay, ord microseconds apart:
             -- tasks of one batch share now(), and this keeps them leased in
             -- the order given (FIFO) instead of by name.
             coalesce(timestamptz 'epoch' + eta_sec * interval '1 second' + eta_micro * interval '1 microsecond',
                      now() + (coalesce(delay_usec, 0) + ord - 1) * interval '1 microsecond') as eta, ord
        from unnest(${names}::text[], ${anyTag ? tags : null}::text[], ${payloadStarts}::int4[], ${payloadLengths}::int4[],
                    ${anyEta ? etaSeconds : null}::int8[], ${anyEta ? etaMicros : null}::int4[], ${anyDelay ? delayUsec : null}::int8[]${pushInput}${givenInput})
             with ordinality as i (name, tag, payload_start, payload_length, eta_sec, eta_micro, delay_usec${pushName}${givenName}, ord)`;
  const query = addStatement(
    (name) => table(ctx, name),
    (name) => routine(ctx, name),
    { named, checkForm: params.checkForm !== false, push: anyPush },
    { queueId: sql`${params.queueId}::int4`, count: sql`${n}::int4`, input },
  ).compile(ctx.db);

  let result;
  if (params.transaction) {
    const run = runnerFor(params.transaction);
    await countInTransaction(ctx, run, params);
    result = await run(query);
  } else {
    result = await ctx.db.executeQuery(query);
  }
  // A refused add raised from the statement (refuse_add): an answer is an add stored whole.
  const row = result.rows[0];
  // Hand the tasks back in the order given, as the statement stored them.
  const nowUsec = toNumber(row?.now_usec);
  const out = new Array<Task>(n);
  for (let i = 0; i < n; i++) {
    const t = tasks[i]!;
    out[i] = {
      name: t.name,
      queueName: params.queueName,
      payload: toBuffer(t.payload),
      tag: t.tag,
      retryCount: 0,
      etaUsec: t.etaUsec ?? nowUsec + delayUsec[i]! + i,
      enqueuedUsec: nowUsec,
      lastError: null,
      ...(t.push ? { push: t.push } : {}),
    };
  }
  return out;
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
  const query = sql<{
    before: number;
    allowed: boolean;
    in_transaction: boolean;
    read_committed: boolean;
  }>`/* count_in_transaction */
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
