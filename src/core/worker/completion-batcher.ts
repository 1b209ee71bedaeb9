import type { HeldLease, WorkerTask } from './worker-backend.js';

/** Most tasks one delete call carries. */
const MAX_BATCH = 1000;

interface Pending<T extends WorkerTask> {
  readonly held: HeldLease<T>;
  readonly resolve: (deleted: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Deletes finished tasks, many per call: the first success goes out at
 * once, and those that finish while a call is in flight go out together
 * in the next. A failed call fails every task it carried (the runner
 * decides whether to try again).
 */
export class CompletionBatcher<T extends WorkerTask> {
  readonly #complete: (held: readonly HeldLease<T>[]) => Promise<boolean[]>;
  #pending: Pending<T>[] = [];
  #flushing = false;

  constructor(complete: (held: readonly HeldLease<T>[]) => Promise<boolean[]>) {
    this.#complete = complete;
  }

  /** Resolves to whether the task was deleted (false: its lease was no longer this one). */
  complete(held: HeldLease<T>): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ held, resolve, reject });
      if (!this.#flushing) void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#flushing = true;
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0, MAX_BATCH);
        try {
          const deleted = await this.#complete(batch.map((p) => p.held));
          batch.forEach((p, i) => p.resolve(deleted[i] === true));
        } catch (error) {
          for (const p of batch) p.reject(error);
        }
      }
    } finally {
      this.#flushing = false;
    }
  }
}
