/**
 * The reasons a handler's `signal` aborts with, so a handler (or its
 * logs) can tell a lost lease from a worker shutting down.
 */

/** The lease on the task was lost (expired and taken, deleted, purged): someone else may run it now. */
export class LeaseLostError extends Error {
  readonly task: string;

  constructor(task: string, detail: string, options?: { cause?: unknown }) {
    super(`the lease on task "${task}" was lost: ${detail}`, options);
    this.name = 'LeaseLostError';
    this.task = task;
  }
}

/** The worker is stopping and the grace period ran out: the task's lease is being released. */
export class WorkerStoppedError extends Error {
  readonly task: string;

  constructor(task: string) {
    super(`the worker stopped before task "${task}" finished; its lease was released`);
    this.name = 'WorkerStoppedError';
    this.task = task;
  }
}
