import type { Logger } from '../../core/logger.js';
import { currentRevision } from './configured-queues.js';
import type { StoreContext } from '../store-context.js';

/** The revision a process serves and the database's newest. */
export interface DefinitionsStatus {
  readonly serving: number | null;
  readonly current: number | null;
}

/**
 * Notices when another process writes newer queue definitions than the ones
 * this process serves from memory: one process must not go on serving
 * queues, rates and targets the owner changed without saying so. Checked on
 * a timer (one tiny query; 10 s by default) and whenever `status()` is asked
 * (`definitionsStatus()`). On the first change it logs an error once. The process goes
 * on serving what it started with (its push targets and retry settings in
 * memory; rates, buckets and caps are read from the database) until it is
 * restarted: it stays ready and keeps dispatching, because every process
 * on the older revision notices together, and a rolling deploy or a
 * `config sync` must not take the whole fleet out of service at once.
 */
export class DefinitionsWatch {
  readonly #ctx: StoreContext;
  readonly #serving: number | null;
  readonly #logger: Logger;
  #timer: ReturnType<typeof setInterval> | null = null;
  #stale = false;

  constructor(options: { ctx: StoreContext; serving: number | null; logger: Logger; intervalMs: number }) {
    this.#ctx = options.ctx;
    this.#serving = options.serving;
    this.#logger = options.logger;
    if (options.intervalMs > 0) {
      this.#timer = setInterval(() => void this.status().catch(() => {}), options.intervalMs);
      this.#timer.unref();
    }
  }

  /** The revisions now; notices a change as a side effect. */
  async status(): Promise<DefinitionsStatus> {
    const current = (await currentRevision(this.#ctx))?.revision ?? null;
    // A database written before sql/0018 has no revision until its owner writes one: nothing to compare.
    if (current !== null && current !== this.#serving && !this.#stale) {
      this.#stale = true;
      this.#logger.error(
        { serving: this.#serving, current },
        `queue definitions changed: the database is at revision ${current}, this process serves ${String(this.#serving)}; ` +
          'it goes on serving the definitions it started with: restart it to serve the new ones',
      );
    }
    return { serving: this.#serving, current };
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}
