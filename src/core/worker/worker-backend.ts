/**
 * What a worker runner needs from a queue, whichever way it reaches it:
 * in-process (TaskQueue) or over REST (TaskQueueClient). The runner
 * (task-worker.ts) holds all the rules; a backend only makes the calls.
 */

/** The part of a task the runner reads; the handler gets the whole task. */
export interface WorkerTask {
  readonly name: string;
  /** The lease token the lease handed out (the lease expiry). */
  readonly etaUsec: number;
  /** Leases so far, this one included. */
  readonly retryCount: number;
}

/** A task the runner holds: the task, and its lease token now (renewals change it). */
export interface HeldLease<T extends WorkerTask> {
  readonly task: T;
  readonly token: number;
}

export interface WorkerLeaseRequest {
  readonly maxTasks: number;
  readonly leaseSeconds: number;
  readonly tag: string | undefined;
  readonly groupByTag: boolean;
  /** Long-poll: how long the call may wait for tasks when none is leasable. */
  readonly waitMs: number;
  /** Ends the wait (the worker is stopping); the call then resolves with what it has. */
  readonly signal: AbortSignal;
}

/**
 * How the runner treats an error of a backend call:
 * `lease-lost`: the task's lease is gone (expired and taken, deleted);
 * `paused`: the queue is paused; `unavailable`: the service or database
 * cannot answer now (outage, 503, timeout); `error`: anything else (a
 * refused request, a permission). All but `lease-lost` make the runner
 * back off and try again.
 */
export type WorkerErrorKind = 'lease-lost' | 'paused' | 'unavailable' | 'error';

export interface WorkerBackend<T extends WorkerTask> {
  /** The queue's name, for logs, events and metrics. */
  readonly queueName: string;
  lease(request: WorkerLeaseRequest): Promise<T[]>;
  /** Extends the lease to `leaseSeconds` from now; resolves to the new lease token. */
  renew(held: HeldLease<T>, leaseSeconds: number): Promise<number>;
  /** Deletes the tasks only while they still carry these lease tokens; one boolean per task: deleted or not. */
  complete(held: readonly HeldLease<T>[]): Promise<boolean[]>;
  /** Hands a failed task back: its lease set to the queue's backoff delay, the error kept as its last error. */
  fail(held: HeldLease<T>, error: unknown): Promise<void>;
  /** Ends the lease at once, so another worker can take the task. */
  release(held: HeldLease<T>): Promise<void>;
  classify(error: unknown): WorkerErrorKind;
}
