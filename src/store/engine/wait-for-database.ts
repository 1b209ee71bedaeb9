import pg from 'pg';
import { QueueError, isQueueError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { redactDatabaseUrl } from './redact-database-url.js';
import { translateError } from '../translate-error.js';

export interface WaitForDatabaseOptions {
  /** Give up after this many seconds (TASKQUEUE_DB_WAIT_SECONDS); 0 = one attempt. */
  readonly waitSeconds: number;
  readonly logger: Logger;
  /** First pause between attempts (doubling up to maxDelayMs). */
  readonly firstDelayMs?: number;
  readonly maxDelayMs?: number;
}

/**
 * Waits at start-up for a PostgreSQL server that is not there yet (a
 * container starting next to its database): connects and runs `select 1`,
 * retrying with back-off (0.5 s doubling to 5 s) while the failure is one
 * that waiting can cure (connection refused, timeouts, "the database system
 * is starting up"), with a log line per failed attempt. A failure waiting
 * cannot cure (wrong password, no such database) ends it at once. Gives up
 * with a TRANSIENT_ERROR naming DATABASE_URL (its password redacted).
 */
export async function waitForDatabase(url: string, options: WaitForDatabaseOptions): Promise<void> {
  const shown = redactDatabaseUrl(url);
  const deadline = Date.now() + options.waitSeconds * 1000;
  let delay = options.firstDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 5000;
  for (let attempt = 1; ; attempt++) {
    const remaining = deadline - Date.now();
    let error: QueueError;
    try {
      await probe(url, Math.max(1000, Math.min(10_000, remaining)));
      if (attempt > 1) options.logger.info({ database: shown, attempt }, 'database reachable');
      return;
    } catch (caught) {
      error = translateError(caught);
    }
    const reason = error.cause instanceof Error ? error.cause.message : error.message;
    const curable = isQueueError(error, 'TRANSIENT_ERROR') || isQueueError(error, 'DEADLINE_EXCEEDED');
    if (!curable) {
      throw new QueueError(
        'TRANSIENT_ERROR',
        `could not use the database at DATABASE_URL ${shown}: ${reason}`,
        { field: 'DATABASE_URL' },
        { cause: error },
      );
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new QueueError(
        'TRANSIENT_ERROR',
        `the database at DATABASE_URL ${shown} did not answer within ${options.waitSeconds} s (TASKQUEUE_DB_WAIT_SECONDS), ${attempt} attempts: ${reason}`,
        { field: 'DATABASE_URL' },
        { cause: error },
      );
    }
    const pause = Math.min(delay, left);
    options.logger.warn({ database: shown, attempt, retryInMs: pause, reason }, 'database not reachable; retrying');
    await new Promise((resolve) => setTimeout(resolve, pause));
    delay = Math.min(delay * 2, maxDelay);
  }
}

async function probe(url: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    application_name: 'taskqueue',
  });
  // A connection that fails after connecting must not crash the process.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => {});
  }
}
