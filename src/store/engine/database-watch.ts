import { isQueueError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';

/**
 * Notices the database going away and coming back, from the outcome of the
 * store's own queries, and says so once each way: "database lost" (with the
 * error) at the first query that finds it unavailable, "database regained"
 * (with how long it was gone) at the first that succeeds again. Requests in
 * between answer 503 and are logged as such; they do not repeat this line.
 */
export class DatabaseWatch {
  readonly #logger: Logger;
  #lostAt: number | null = null;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** True between a "lost" and the next "regained". */
  get lost(): boolean {
    return this.#lostAt !== null;
  }

  succeeded(): void {
    if (this.#lostAt === null) return;
    const seconds = Math.round((Date.now() - this.#lostAt) / 100) / 10;
    this.#lostAt = null;
    this.#logger.info({ downSeconds: seconds }, 'database regained');
  }

  /** Called with the translated error of a failed query; only unavailability counts. */
  failed(error: unknown): void {
    if (this.#lostAt !== null || !isQueueError(error, 'TRANSIENT_ERROR')) return;
    this.#lostAt = Date.now();
    const cause = error.cause instanceof Error ? error.cause.message : undefined;
    this.#logger.error(
      { reason: error.message, cause, schemaMissing: error.details.schemaMissing === true || undefined },
      'database lost',
    );
  }
}
