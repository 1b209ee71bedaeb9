import type { HeldLease, WorkerTask } from './worker-backend.js';

/** Most tasks one delete call carries. */
const MAX_BATCH = 1000;

/** The answer for one task: deleted (true), not deleted because its lease was no longer this one (false), or the call's error. */
export type CompletionResult = { readonly deleted: boolean } | { readonly error: unknown };

// Shared answers (frozen: handed to every task's callback), no object per task.
const DELETED: CompletionResult = Object.freeze({ deleted: true });
const NOT_DELETED: CompletionResult = Object.freeze({ deleted: false });

/**
 * Deletes finished tasks, many per call: a success goes out at once while
 * fewer than `maxInFlight` calls are in flight, and those that finish
 * meanwhile go out together in the next. A failed call fails every task
 * it carried (the runner decides whether to try again). `submit` answers
 * through the one callback given at construction (no promise per task: the
 * runner's hot path); `complete` answers with a promise.
 */
export class CompletionBatcher<T extends WorkerTask, H extends HeldLease<T> = HeldLease<T>> {
  readonly #complete: (held: readonly H[]) => Promise<boolean[]>;
  readonly #maxInFlight: number;
  readonly #onResult: (held: H, result: CompletionResult) => void;
  #pending: H[] = [];
  /** For each pending task, its promise's resolver, or null for a submitted one. */
  #waiters: (((result: CompletionResult) => void) | null)[] = [];
  #inFlight = 0;

  constructor(
    complete: (held: readonly H[]) => Promise<boolean[]>,
    maxInFlight = 1,
    onResult: (held: H, result: CompletionResult) => void = () => {},
  ) {
    this.#complete = complete;
    this.#maxInFlight = maxInFlight;
    this.#onResult = onResult;
  }

  /** Queues a task's delete; the answer goes to the constructor's callback. */
  submit(held: H): void {
    this.#add(held, null);
  }

  /** Resolves to whether the task was deleted (false: its lease was no longer this one); rejects with the call's error. */
  complete(held: H): Promise<boolean> {
    return new Promise((resolve, reject) =>
      this.#add(held, (result) => ('error' in result ? reject(result.error) : resolve(result.deleted))),
    );
  }

  #add(held: H, waiter: ((result: CompletionResult) => void) | null): void {
    this.#pending.push(held);
    this.#waiters.push(waiter);
    // Handlers that finish in the same turn (a batch of quick ones) share the call.
    if (this.#pending.length === 1 && this.#inFlight < this.#maxInFlight) setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    if (this.#pending.length === 0 || this.#inFlight >= this.#maxInFlight) return;
    this.#inFlight++;
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0, MAX_BATCH);
        const waiters = this.#waiters.splice(0, MAX_BATCH);
        let answer: boolean[] | { error: unknown };
        try {
          answer = await this.#complete(batch);
        } catch (error) {
          answer = { error };
        }
        for (let i = 0; i < batch.length; i++) {
          const result = Array.isArray(answer) ? (answer[i] === true ? DELETED : NOT_DELETED) : answer;
          const waiter = waiters[i];
          if (waiter) waiter(result);
          else this.#onResult(batch[i]!, result);
        }
      }
    } finally {
      this.#inFlight--;
      if (this.#pending.length > 0) void this.#flush();
    }
  }
}
