import { setMaxListeners } from 'node:events';
import { lastErrorMessage } from '../core/last-error.js';
import { DEFAULT_RETRY_PARAMETERS, type RetryParameters } from '../core/queue-config.js';
import { retryBackoffSeconds } from '../core/retry-backoff.js';
import { TaskWorker, type TaskHandler } from '../core/worker/task-worker.js';
import type { HeldLease, WorkerBackend, WorkerErrorKind, WorkerLeaseRequest } from '../core/worker/worker-backend.js';
import { resolveWorkerOptions, type WorkerOptions } from '../core/worker/worker-options.js';
import { TaskQueueApiError } from './client-errors.js';
import type { ClientTask } from './client-task.js';
import type { QueueCalls } from './queue-calls.js';

/** Longest long-poll of one tasks.lease call the server accepts. */
const MAX_WAIT_MS = 60_000;

export function startRestWorker(
  queue: QueueCalls,
  handler: TaskHandler<ClientTask>,
  options: WorkerOptions,
): TaskWorker<ClientTask> {
  const resolved = resolveWorkerOptions(options, queue.name, { maxWaitMs: MAX_WAIT_MS });
  return new TaskWorker(new RestBackend(queue), handler, resolved);
}

/**
 * The worker runner's calls over REST. Lease lengths travel in whole
 * seconds (the API's unit), rounded up. A paused queue answers leases with
 * no tasks over REST, so it looks like an empty one (long-polled).
 */
class RestBackend implements WorkerBackend<ClientTask> {
  readonly #queue: QueueCalls;
  #retry: Promise<RetryParameters> | null = null;
  #stopSignal: AbortSignal | null = null;

  constructor(queue: QueueCalls) {
    this.#queue = queue;
  }

  get queueName(): string {
    return this.#queue.name;
  }

  async lease(request: WorkerLeaseRequest): Promise<ClientTask[]> {
    if (request.signal !== this.#stopSignal) {
      // Every lease call in flight listens to the worker's stop signal (up to concurrency / batchSize of them).
      this.#stopSignal = request.signal;
      setMaxListeners(0, request.signal);
    }
    try {
      return await this.#queue.lease({
        numTasks: request.maxTasks,
        leaseSecs: Math.ceil(request.leaseSeconds),
        groupByTag: request.groupByTag,
        ...(request.tag === undefined ? {} : { tag: request.tag }),
        waitSecs: Math.ceil(request.waitMs / 1000),
        signal: request.signal,
      });
    } catch (error) {
      // Stopping: the server ends the wait when the call goes away, leasing nothing. (An answer
      // already coming is not aborted but read: its tasks are then held, and stop() releases them.)
      if (request.signal.aborted) return [];
      throw error;
    }
  }

  async renew(held: HeldLease<ClientTask>, leaseSeconds: number): Promise<number> {
    const task = await this.#queue.update(held.task.name, {
      leaseToken: held.token,
      newLeaseSeconds: Math.ceil(leaseSeconds),
    });
    return task.etaUsec;
  }

  async complete(held: readonly HeldLease<ClientTask>[]): Promise<boolean[]> {
    const names: string[] = new Array<string>(held.length);
    const tokens: number[] = new Array<number>(held.length);
    for (let i = 0; i < held.length; i++) {
      names[i] = held[i]!.task.name;
      tokens[i] = held[i]!.token;
    }
    const { deleted, notFound } = await this.#queue.batchDelete(names, tokens);
    // The usual answer: everything deleted (no set of the names to build).
    if (notFound.length === 0 && deleted.length === held.length) return new Array<boolean>(held.length).fill(true);
    const gone = new Set(deleted);
    return held.map((h) => gone.has(h.task.name));
  }

  async fail(held: HeldLease<ClientTask>, error: unknown): Promise<void> {
    const seconds = retryBackoffSeconds(Math.max(1, held.task.retryCount), await this.#retryParameters());
    await this.#queue.update(held.task.name, {
      leaseToken: held.token,
      newLeaseSeconds: Math.ceil(seconds),
      lastError: lastErrorMessage(error),
    });
  }

  async release(held: HeldLease<ClientTask>): Promise<void> {
    await this.#queue.update(held.task.name, { leaseToken: held.token, newLeaseSeconds: 0 });
  }

  classify(error: unknown): WorkerErrorKind {
    if (error instanceof TaskQueueApiError) {
      if (error.leaseLost) return 'lease-lost';
      if (error.retryable) return 'unavailable';
    }
    return 'error';
  }

  /** The queue's backoff, read once from taskqueues.get (App Engine's defaults from a server that does not say). */
  #retryParameters(): Promise<RetryParameters> {
    this.#retry ??= this.#queue.get().then(
      (info) => ({ ...DEFAULT_RETRY_PARAMETERS, ...info.retryParameters }),
      (error: unknown) => {
        // Asked again at the next failure.
        this.#retry = null;
        throw error;
      },
    );
    return this.#retry;
  }
}
