import type { Logger } from '../core/logger.js';
import type { StoreContext } from './store-context.js';
import { analyzeIfStale } from './task-statistics.js';

/**
 * Keeps the planner's statistics of the task table in step with fast
 * growth (see task-statistics.ts): after every half of the table's size in
 * adds by this process, one query compares the exact count with the
 * planner's estimate, and analyzes the table when it is far behind. In the
 * background: no add waits for it.
 */
export class StatisticsKeeper {
  readonly #ctx: StoreContext;
  readonly #logger: Logger;
  /** Tasks this process added since it last compared the table's statistics with its size. */
  #addedSinceCheck = 0;
  /**
   * Adds after which to compare again: half the table's size at the last
   * check, from 1,000 to 100,000. The cap matters after a drain (deletes,
   * perhaps by other processes, which this count does not see): a table
   * checked at ten million tasks and emptied since is checked again within
   * 100,000 adds of a refill, not five million.
   */
  #nextCheck = 1000;
  #checking: Promise<void> | null = null;

  constructor(ctx: StoreContext, logger: Logger) {
    this.#ctx = ctx;
    this.#logger = logger;
  }

  /** Counts `count` tasks added by this process; starts a check when enough have been. */
  noteAdded(count: number): void {
    this.#addedSinceCheck += count;
    if (this.#addedSinceCheck < this.#nextCheck || this.#checking) return;
    this.#addedSinceCheck = 0;
    // Not through the store's guard: a failed check says nothing about the database's availability.
    this.#checking = analyzeIfStale(this.#ctx)
      .then(
        ({ tasks, analyzed }) => {
          this.#nextCheck = Math.min(100_000, Math.max(1000, Math.floor(tasks / 2)));
          if (analyzed) this.#logger.debug({ tasks }, 'task table analyzed: its statistics were far behind its size');
        },
        (error: unknown) => this.#logger.debug({ err: error }, 'task table statistics: check failed'),
      )
      .finally(() => {
        this.#checking = null;
      });
  }

  /** Waits for a check in progress (before the database closes). */
  async close(): Promise<void> {
    await this.#checking;
  }
}
