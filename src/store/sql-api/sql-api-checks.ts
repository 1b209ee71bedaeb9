import { LIMITS } from '../../core/limits.js';

/**
 * PL/pgSQL checks that more than one generated SQL API function makes, written
 * once here so their wording and SQLSTATE cannot drift between functions.
 * Each is a block of statements at the function body's indentation (two
 * spaces), ending with a newline.
 */

/** Adds only under READ COMMITTED: add_tasks and add_push_task. */
export const READ_COMMITTED_CHECK = `  IF current_setting('transaction_isolation') <> 'read committed' THEN
    -- The trigger's tombstone and storage-limit checks read the latest
    -- committed rows only under READ COMMITTED.
    RAISE EXCEPTION 'isolation level: tasks can be added only inside READ COMMITTED transactions (the PostgreSQL default), not %',
      current_setting('transaction_isolation')
      USING ERRCODE = 'TQ015', DETAIL = current_setting('transaction_isolation'), HINT = 'INVALID_REQUEST';
  END IF;
`;

const MAX_LEASE_SECONDS = LIMITS.maxLeaseMs / 1000;

/** The `lease_seconds` argument within 0 to a week: lease_tasks and modify_lease. */
export const LEASE_SECONDS_CHECK = `  IF lease_seconds IS NULL OR lease_seconds < 0 OR lease_seconds > ${MAX_LEASE_SECONDS} THEN
    RAISE EXCEPTION 'lease_seconds: a lease lasts 0 to ${MAX_LEASE_SECONDS} seconds (one week), got %', coalesce(lease_seconds::text, 'NULL')
      USING ERRCODE = 'TQ015', DETAIL = coalesce(lease_seconds::text, ''), HINT = 'INVALID_REQUEST';
  END IF;
`;

/** At most `limit` tasks in one call (`n`, TQ009): add_tasks and delete_tasks. */
export function batchSizeCheck(limit: number, done: 'added' | 'deleted'): string {
  return `  IF n > ${limit} THEN
    RAISE EXCEPTION 'batch size: at most ${limit} tasks may be ${done} at once, got %', n
      USING ERRCODE = 'TQ009', DETAIL = n::text, HINT = 'TOO_MANY_TASKS';
  END IF;
`;
}
