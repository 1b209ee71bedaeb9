import { QueueError, isQueueError } from '../core/errors.js';
import { errorCodeOfSqlState } from './sql-api/sql-api-errors.js';

/**
 * The one place where database errors become QueueErrors. Codes are decided
 * by SQLSTATE and constraint name; message text is read only where a server
 * leaves the constraint out (Citus re-raises a worker's unique violation with
 * its message and detail only, naming the shard's index: tasks_pkey_102021).
 */
export function translateError(error: unknown, context: { queue?: string } = {}): QueueError {
  if (isQueueError(error)) return error;
  const e = error as { code?: unknown; constraint?: unknown; detail?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const constraint = typeof e.constraint === 'string' ? e.constraint : '';
  const message = typeof e.message === 'string' ? e.message : String(error);
  const queue = context.queue;
  // The SQL API's errors (and the triggers') carry the task's name as DETAIL.
  const task = typeof e.detail === 'string' ? e.detail : undefined;

  switch (code) {
    case 'TQ001':
      return new QueueError(
        'TOMBSTONED_TASK',
        `task "${task ?? '?'}" was deleted recently; its name is held and cannot be reused yet`,
        { queue, task },
        { cause: error },
      );
    case 'TQ002':
      return new QueueError('STORAGE_LIMIT_EXCEEDED', message, { queue }, { cause: error });
    // The add statement's refusals (refuse_add, sql/routines/refuse_add.sql), in the service's words.
    case 'TQ010':
      return new QueueError(
        'DUPLICATE_TASK_NAME',
        `task name "${task ?? '?'}" appears twice in one add`,
        { queue, task },
        { cause: error },
      );
    case 'TQ011':
      return new QueueError(
        'TASK_ALREADY_EXISTS',
        `task "${task ?? '?'}" already exists`,
        { queue, task },
        { cause: error },
      );
    case 'TQ008':
      return new QueueError('INVALID_ETA', message.replace(/^eta: /, ''), { queue, task }, { cause: error });
    case '23505':
      if (isDuplicateTask(constraint, e.message, e.detail)) {
        const name = nameFromKeyDetail(e.detail);
        return new QueueError(
          'TASK_ALREADY_EXISTS',
          `task "${name ?? '?'}" already exists`,
          { queue, task: name },
          {
            cause: error,
          },
        );
      }
      break;
    case '25P02': // in_failed_sql_transaction: the caller's, after an earlier error
      return new QueueError(
        'INVALID_REQUEST',
        'transaction: the transaction is aborted by an earlier error (a refused add fails its statement); roll it back, or back to a savepoint',
        { queue, field: 'transaction' },
        { cause: error },
      );
    case '42P01': // undefined_table
    case '3F000': // invalid_schema_name
      // The service's tables are gone (the schema was dropped or never
      // migrated under this process): the database is unusable until an
      // operator restores it, like a database that went away, so 503, never 500.
      return new QueueError(
        'TRANSIENT_ERROR',
        "the database is unavailable: the service's tables are missing; back off and retry",
        { queue, schemaMissing: true },
        { cause: error },
      );
    case '57014': // query_canceled: statement_timeout
      return new QueueError(
        'DEADLINE_EXCEEDED',
        'the database did not answer in time; back off and retry',
        { queue },
        {
          cause: error,
        },
      );
    case '40001': // serialization_failure
    case '40P01': // deadlock_detected
    case '55P03': // lock_not_available
    case '53300': // too_many_connections
    case '57P01': // admin_shutdown
    case '57P02': // crash_shutdown
    case '57P03': // cannot_connect_now
      return transient(error, queue);
  }
  // The SQL API's own errors, should a statement of the service meet one.
  const apiCode = errorCodeOfSqlState(code);
  if (apiCode !== undefined) return new QueueError(apiCode, message, { queue }, { cause: error });
  if (code.startsWith('08')) return transient(error, queue); // connection exceptions
  if (code.startsWith('53') || code === '57P05') return transient(error, queue); // insufficient resources, idle session timeout
  if (isNetworkError(code, message)) return transient(error, queue);
  // A Citus worker that cannot be reached (stopped, restarting): its queues
  // wait for it, nothing of theirs is lost (docs/scaling.md).
  if (code === 'XX000' && CITUS_WORKER_GONE.test(message)) return transient(error, queue);
  if (/timeout/i.test(message) && !code) {
    // pg's client-side timeouts (connect or query_timeout) carry no SQLSTATE.
    return new QueueError(
      'DEADLINE_EXCEEDED',
      'the database did not answer in time; back off and retry',
      { queue },
      {
        cause: error,
      },
    );
  }
  return new QueueError('INTERNAL_ERROR', 'internal database error', { queue }, { cause: error });
}

const CITUS_WORKER_GONE = /^(failure on connection marked as essential|connection to the remote node .* failed)/;

function transient(error: unknown, queue: string | undefined): QueueError {
  return new QueueError(
    'TRANSIENT_ERROR',
    'the database is unavailable; back off and retry',
    { queue },
    {
      cause: error,
    },
  );
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

function isNetworkError(code: string, message: string): boolean {
  return (
    NETWORK_CODES.has(code) ||
    /Connection terminated|connection is closed|Client was closed|Cannot use a pool after calling end|connection error and is not queryable/i.test(
      message,
    )
  );
}

/**
 * A unique violation of the tasks' primary key: named by the constraint
 * field, or (when the field is missing) by the message, which names the index
 * (`tasks_pkey`, or a Citus shard's `tasks_pkey_102021`), or by the detail's key
 * columns. Other tables keyed by (queue_id, name), such as tombstones and
 * dead letters, have their own index names, so a missing constraint with only
 * the detail to go on counts only when the message names no other index.
 */
function isDuplicateTask(constraint: string, message: unknown, detail: unknown): boolean {
  if (constraint !== '') return constraint === 'tasks_pkey';
  const text = typeof message === 'string' ? message : '';
  const index = /unique constraint "([^"]+)"/.exec(text)?.[1];
  if (index !== undefined) return /^tasks_pkey(_\d+)?$/.test(index);
  return nameFromKeyDetail(detail) !== undefined;
}

/** `Key (queue_id, name)=(3, my-task) already exists.` -> `my-task`. */
function nameFromKeyDetail(detail: unknown): string | undefined {
  if (typeof detail !== 'string') return undefined;
  const match = /^Key \(queue_id, name\)=\(\d+, (.*)\) already exists\.?$/.exec(detail);
  return match?.[1];
}
