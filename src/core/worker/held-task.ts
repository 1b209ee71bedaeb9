import type { HeldLease, WorkerTask } from './worker-backend.js';

/** What a handler gets besides its task. */
export interface HandlerContext {
  /** Aborts when the task's lease is lost (LeaseLostError) or the worker stops past its grace (WorkerStoppedError). */
  readonly signal: AbortSignal;
}

/**
 * A task the worker holds, leased and not yet settled. Its handler's
 * abort signal is made only when the handler reads it: an AbortSignal cost
 * the REST runner more CPU per task than any other allocation of a no-op
 * handler's run (about a tenth of the runner's process in the bench), and
 * most handlers never look.
 */
export class HeldTask<T extends WorkerTask> implements HeldLease<T>, HandlerContext {
  token: number;
  /** Node's clock when the lease ends unless renewed: the runner's own estimate, for scheduling only. */
  expiresAt: number;
  /** Node's clock when the next renewal is due; Infinity when none is (the handler ended, or a renewal runs). */
  renewAt: number;
  renewing: Promise<void> | null = null;
  /** How long the handler ran, in seconds (for the metrics), once it ended. */
  seconds = 0;
  /** The handler has ended: its delete or failure is under way, no renewal is scheduled any more. */
  ended = false;
  /** The lease is gone (or handed back): nothing may delete or fail the task any more. */
  settled = false;
  /** stop() hands the task back: whatever its handler does after, the task is released, not deleted or failed. */
  released = false;
  #controller: AbortController | null = null;
  #abortReason: Error | null = null;

  constructor(
    readonly task: T,
    now: number,
    leaseMs: number,
  ) {
    this.token = task.etaUsec;
    this.expiresAt = now + leaseMs;
    this.renewAt = now + leaseMs / 2;
  }

  /** The handler's signal (HandlerContext): aborted already if the task was lost before it was read. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#abortReason !== null) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  abort(reason: Error): void {
    if (this.#abortReason !== null) return;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }
}

/** A handler's context: a class (its getter on the prototype), so that a task costs one small object, not a closure with a getter. */
export class TaskContext<T extends WorkerTask> implements HandlerContext {
  readonly #held: HeldTask<T>;

  constructor(held: HeldTask<T>) {
    this.#held = held;
  }

  get signal(): AbortSignal {
    return this.#held.signal;
  }
}
