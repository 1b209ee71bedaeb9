import type { HeldLease, WorkerTask } from './worker-backend.js';

/** Most tasks one delete call carries. */
const MAX_BATCH = 1000;

interface Pending<T extends WorkerTask> {
  readonly held: HeldLease<T>;
  readonly resolve: (deleted: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Deletes finished tasks, many per call: a success goes out at once while
 * fewer than `maxInFlight` calls are in flight, and those that finish
 * meanwhile go out together in the next. A failed call fails every task
 * it carried (the runner decides whether to try again).
 */
export class CompletionBatcher<T extends WorkerTask> {
  readonly #complete: (held: readonly HeldLease<T>[]) => Promise<boolean[]>;
  readonly #maxInFlight: number;
  #pending: Pending<T>[] = [];
  #inFlight = 0;

  constructor(complete: (held: readonly HeldLease<T>[]) => Promise<boolean[]>, maxInFlight = 1) {
    this.#complete = complete;
    this.#maxInFlight = maxInFlight;
  }

  /** Resolves to whether the task was deleted (false: its lease was no longer this one). */
  complete(held: HeldLease<T>): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ held, resolve, reject });
      // Handlers that finish in the same turn (a batch of quick ones) share the call.
      if (this.#pending.length === 1 && this.#inFlight < this.#maxInFlight) setImmediate(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    if (this.#pending.length === 0 || this.#inFlight >= this.#maxInFlight) return;
    this.#inFlight++;
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
      this.#inFlight--;
      if (this.#pending.length > 0) void this.#flush();
    }
  }
}
