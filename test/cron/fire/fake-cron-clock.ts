import type { CronClock } from '../../../src/core/cron/cron-scheduler.js';

/**
 * The scheduler's clock in tests: the time is what the test sets, and a
 * wait lasts until the test moves the time (or the scheduler stops).
 */
export class FakeCronClock implements CronClock {
  #now: Date;
  readonly #waiters = new Set<() => void>();

  constructor(start: string) {
    this.#now = new Date(start);
  }

  async now(): Promise<Date> {
    return this.#now;
  }

  sleep(_ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.#waiters.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.#waiters.add(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
  }

  /** Whether the scheduler waits now (it has done what was due). */
  get waiting(): boolean {
    return this.#waiters.size > 0;
  }

  /** Moves the time to `at` and wakes every wait. */
  set(at: string): void {
    this.#now = new Date(at);
    for (const wake of [...this.#waiters]) wake();
  }
}

/** Resolves when `check` holds, polling every 20 ms; fails after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
