import { backoffDelayMs, sleep } from './backoff-delay.js';
import { CompletionBatcher, type CompletionResult } from './completion-batcher.js';
import { HeldTask, TaskContext, type HandlerContext } from './held-task.js';
import { LeaseRenewer } from './lease-renewer.js';
import type { WorkerBackend, WorkerTask } from './worker-backend.js';
import { LeaseLostError, WorkerStoppedError } from './worker-errors.js';
import {
  noWorkerMetrics,
  WorkerListeners,
  type WorkerEventMap,
  type WorkerMetrics,
  type WorkerState,
} from './worker-events.js';
import type { ResolvedWorkerOptions } from './worker-options.js';
import { WorkerStatus } from './worker-status.js';

export type { HandlerContext } from './held-task.js';

/** Resolves: success (the task is deleted). Throws: failure (the task comes back after the backoff delay). */
export type TaskHandler<T> = (task: T, context: HandlerContext) => Promise<unknown> | unknown;

type Held<T extends WorkerTask> = HeldTask<T>;

/**
 * The worker runner: leases tasks, runs the handler on each with at most
 * `concurrency` at once, renews leases while handlers run, deletes on
 * success (fenced by the lease token), hands failures back with the queue's
 * backoff, backs off on errors, and stops cleanly. One implementation for
 * both ways of reaching a queue (see WorkerBackend).
 */
export class TaskWorker<T extends WorkerTask> {
  readonly #backend: WorkerBackend<T>;
  readonly #handler: TaskHandler<T>;
  readonly #options: ResolvedWorkerOptions;
  readonly #metrics: WorkerMetrics;
  readonly #listeners = new WorkerListeners<T>();
  readonly #completions: CompletionBatcher<T, Held<T>>;
  /** Every task held, buffered or running. */
  readonly #held = new Set<Held<T>>();
  readonly #buffer: Held<T>[] = [];
  /** Handlers running or settling (their delete or failure in flight): stop() waits for these within the grace. */
  #runs = 0;
  /**
   * What stop() waits for: every run over (the grace), or, once the grace
   * is over and the handlers still running are aborted and their tasks
   * released, the settling of those that had ended (a delete in flight is
   * let finish, not raced by a release).
   */
  #drained: { readonly settlingOnly: boolean; readonly resolve: () => void } | null = null;
  readonly #renewals: LeaseRenewer<T>;
  readonly #stopping = new AbortController();
  /** Handlers running now (a task whose handler ended waits only for its delete or failure answer). */
  #running = 0;
  readonly #status: WorkerStatus<T>;
  /** Lease calls in flight. */
  readonly #leasing = new Set<Promise<void>>();
  /** The last lease call found nothing (or failed): one call at a time until tasks come. */
  #idle = false;
  /** The last lease call came back full: tasks are plainly there, so the next one asks for no wait. */
  #plenty = false;
  #stopped: Promise<void> | null = null;

  constructor(
    backend: WorkerBackend<T>,
    handler: TaskHandler<T>,
    options: ResolvedWorkerOptions,
    metrics: WorkerMetrics = noWorkerMetrics,
  ) {
    if (typeof handler !== 'function') throw new TypeError('work(handler, options): handler must be a function');
    this.#backend = backend;
    this.#handler = handler;
    this.#options = options;
    this.#metrics = metrics;
    this.#status = new WorkerStatus(this.#listeners, options.logger, backend.queueName);
    // As many delete calls in flight as lease calls may be (one per batch that fits in concurrency, at most 16).
    const calls = Math.min(16, Math.max(1, Math.floor(options.concurrency / options.batchSize)));
    this.#completions = new CompletionBatcher<T, Held<T>>(
      (held) => backend.complete(held),
      calls,
      (held, result) => this.#completed(held, result),
    );
    this.#renewals = new LeaseRenewer({
      held: this.#held,
      backend,
      leaseSeconds: options.leaseSeconds,
      metrics,
      listeners: this.#listeners,
      status: this.#status,
      lost: (held, detail, cause) => this.#lost(held, detail, cause),
    });
    const signal = options.signal;
    if (signal) {
      if (signal.aborted) queueMicrotask(() => void this.stop());
      else signal.addEventListener('abort', () => void this.stop(), { once: true });
    }
    this.#pump();
  }

  /** Running, backing off (paused, unavailable, error), stopping or stopped. */
  get state(): WorkerState {
    return this.#status.state;
  }

  /** Tasks held now (running or leased ahead). */
  get heldCount(): number {
    return this.#held.size;
  }

  /** Tasks whose handler runs now. */
  get runningCount(): number {
    return this.#running;
  }

  on<E extends keyof WorkerEventMap<T>>(event: E, listener: WorkerEventMap<T>[E]): this {
    this.#listeners.on(event, listener);
    return this;
  }

  off<E extends keyof WorkerEventMap<T>>(event: E, listener: WorkerEventMap<T>[E]): this {
    this.#listeners.off(event, listener);
    return this;
  }

  /**
   * Stops: no new leases; tasks leased ahead are released at once; running
   * handlers get the grace period to finish, then their signals abort and
   * their leases are released, whatever the handlers do after (a success or
   * a failure that comes after the abort counts for nothing). Resolves when
   * the worker holds nothing.
   */
  stop(): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<void> {
    this.#status.set('stopping');
    this.#stopping.abort();
    while (this.#leasing.size > 0) await Promise.all([...this.#leasing]);
    await Promise.all(this.#buffer.splice(0).map((held) => this.#release(held)));
    if (this.#runs > 0) {
      const grace = new AbortController();
      const drained = new Promise<void>((resolve) => (this.#drained = { settlingOnly: false, resolve }));
      await Promise.race([drained, sleep(this.#options.gracePeriodMs, grace.signal)]);
      grace.abort();
    }
    const releases: Promise<void>[] = [];
    for (const held of [...this.#held]) {
      if (held.ended) continue;
      // Marked as released before the abort: a handler that ends in the abort's own turn finds it so.
      releases.push(this.#release(held));
      held.abort(new WorkerStoppedError(held.task.name));
    }
    await Promise.all(releases);
    if (this.#runs > this.#running)
      await new Promise<void>((resolve) => (this.#drained = { settlingOnly: true, resolve }));
    this.#renewals.stop();
    this.#status.set('stopped');
  }

  /**
   * Starts lease calls while there is room: a call may bring `batchSize`
   * tasks, so calls go out while the tasks running or waiting to run plus
   * those the calls in flight may bring stay under `concurrency`. Tasks
   * whose handler ended and whose delete (or failure) is in flight do not
   * count there: the next lease goes out beside their delete instead of
   * after it. They do count in the hard bound, never more held than
   * `concurrency` plus one batch. With batchSize below concurrency several
   * calls run at once; after an empty answer or an error only one does,
   * until tasks come again (idle workers do not multiply long-polls).
   */
  #pump(): void {
    const { concurrency, batchSize } = this.#options;
    // Called once per task settled: the counts first, the stop signal (a getter) last.
    while (
      this.#held.size - (this.#runs - this.#running) + this.#leasing.size * batchSize < concurrency &&
      this.#held.size + (this.#leasing.size + 1) * batchSize <= concurrency + batchSize &&
      this.#leasing.size < (this.#idle ? 1 : Infinity) &&
      !this.#stopping.signal.aborted
    ) {
      const call = this.#leaseOnce().finally(() => {
        this.#leasing.delete(call);
        this.#pump();
      });
      this.#leasing.add(call);
    }
  }

  async #leaseOnce(): Promise<void> {
    let tasks: T[];
    try {
      tasks = await this.#backend.lease({
        maxTasks: this.#options.batchSize,
        leaseSeconds: this.#options.leaseSeconds,
        tag: this.#options.tag,
        groupByTag: this.#options.groupByTag,
        // A long-poll costs the server more than a plain lease (over REST an abort signal per call): asked for only when the queue may be empty.
        waitMs: this.#plenty ? 0 : this.#options.pollIntervalMs,
        signal: this.#stopping.signal,
      });
    } catch (error) {
      if (this.#stopping.signal.aborted) return;
      this.#idle = true;
      this.#plenty = false;
      this.#status.trouble(this.#backend.classify(error), error);
      await sleep(backoffDelayMs(++this.#status.failures, this.#options.pollIntervalMs), this.#stopping.signal);
      return;
    }
    this.#status.recovered();
    this.#idle = tasks.length === 0;
    this.#plenty = tasks.length >= this.#options.batchSize;
    if (tasks.length === 0) return;
    const now = Date.now();
    const leaseMs = this.#options.leaseSeconds * 1000;
    for (const task of tasks) {
      const held = new HeldTask(task, now, leaseMs);
      this.#held.add(held);
      this.#buffer.push(held);
    }
    this.#renewals.wake(now + leaseMs / 2);
    this.#dispatch();
  }

  /** Runs buffered tasks while fewer than `concurrency` handlers run; none once stop() began (it releases them). */
  #dispatch(): void {
    while (this.#running < this.#options.concurrency && this.#buffer.length > 0 && this.#stopped === null)
      this.#run(this.#buffer.shift()!);
  }

  /**
   * Runs the handler, then settles the task: deleted on success, handed
   * back on failure. A handler that returns no promise settles in the same
   * turn (no promise of ours per task for it).
   */
  #run(held: Held<T>): void {
    this.#running++;
    this.#runs++;
    const started = performance.now();
    let result: unknown;
    try {
      result = this.#handler(held.task, new TaskContext(held));
    } catch (error) {
      return this.#settle(held, started, { error });
    }
    if (typeof (result as PromiseLike<unknown> | null)?.then === 'function') {
      // Its place frees at once: the next buffered task runs, and a lease may go out beside the delete.
      (result as PromiseLike<unknown>).then(
        () => this.#settleAndRefill(held, started, null),
        (error: unknown) => this.#settleAndRefill(held, started, { error }),
      );
    } else {
      this.#settle(held, started, null);
    }
  }

  #settleAndRefill(held: Held<T>, started: number, failure: { error: unknown } | null): void {
    this.#settle(held, started, failure);
    this.#dispatch();
    this.#pump();
  }

  #settle(held: Held<T>, started: number, failure: { error: unknown } | null): void {
    this.#running--;
    held.seconds = (performance.now() - started) / 1000;
    // No renewal may change the token under the delete or the failure.
    held.ended = true;
    held.renewAt = Infinity;
    if (held.renewing)
      void held.renewing.then(
        () => this.#settleNow(held, failure),
        () => this.#settleNow(held, failure),
      );
    else this.#settleNow(held, failure);
  }

  #settleNow(held: Held<T>, failure: { error: unknown } | null): void {
    // Lost, or released by stop(): the handler's outcome counts for nothing.
    if (held.settled || held.released) this.#done(held);
    else if (failure) void this.#fail(held, failure.error, held.seconds).then(() => this.#done(held));
    else this.#completions.submit(held);
  }

  /** The handler's run and its settling are over. */
  #done(held: Held<T>): void {
    this.#forget(held);
    this.#runs--;
    if (this.#drained !== null && this.#runs === (this.#drained.settlingOnly ? this.#running : 0))
      this.#drained.resolve();
    this.#dispatch();
    this.#pump();
  }

  /** The answer of a task's delete (the batcher's callback). */
  #completed(held: Held<T>, result: CompletionResult): void {
    if ('deleted' in result) {
      this.#deleted(held, result.deleted);
      this.#done(held);
    } else {
      void this.#completeAgain(held, result.error).then(() => this.#done(held));
    }
  }

  #deleted(held: Held<T>, deleted: boolean): void {
    held.settled = true;
    this.#status.recovered();
    if (deleted) {
      this.#metrics.processed(this.#backend.queueName, held.seconds);
      this.#listeners.emit('processed', held.task, held.seconds);
    } else {
      this.#lost(
        held,
        'the task was not deleted: its lease had been taken over, or it was deleted or purged meanwhile',
      );
    }
  }

  /** A delete call failed: lost, or try again while the lease still runs (after it ends, the task comes back to be run again). */
  async #completeAgain(held: Held<T>, firstError: unknown): Promise<void> {
    let error = firstError;
    for (let attempt = 1; ; attempt++) {
      const kind = this.#backend.classify(error);
      if (kind === 'lease-lost') return this.#lost(held, 'its delete was refused', error);
      this.#status.trouble(kind, error);
      const delay = backoffDelayMs(attempt, this.#options.pollIntervalMs);
      // Stopping: no waiting on an outage until the lease ends (the task comes back then, to be run again).
      if (Date.now() + delay >= held.expiresAt || this.#stopping.signal.aborted) return;
      await sleep(delay, this.#stopping.signal);
      if (this.#stopping.signal.aborted) return;
      try {
        return this.#deleted(held, await this.#completions.complete(held));
      } catch (next) {
        error = next;
      }
    }
  }

  async #fail(held: Held<T>, error: unknown, seconds: number): Promise<void> {
    held.settled = true;
    this.#metrics.failed(this.#backend.queueName, seconds);
    this.#listeners.emit('failed', held.task, error);
    try {
      await this.#backend.fail(held, error);
    } catch (callError) {
      // Lost: the task is another's now. Unreachable: its lease runs out and it comes back all the same.
      if (this.#backend.classify(callError) === 'lease-lost')
        this.#lost(held, 'its failure could not be recorded', callError);
      else this.#listeners.emit('error', callError);
    }
  }

  /** Hands a task back at once (worker stopping). */
  async #release(held: Held<T>): Promise<void> {
    held.released = true;
    held.renewAt = Infinity;
    await held.renewing;
    if (!held.settled) {
      held.settled = true;
      try {
        await this.#backend.release(held);
      } catch (error) {
        // Its lease runs out by itself.
        if (this.#backend.classify(error) !== 'lease-lost') this.#listeners.emit('error', error);
      }
    }
    this.#forget(held);
  }

  #forget(held: Held<T>): void {
    held.renewAt = Infinity;
    this.#held.delete(held);
  }

  #lost(held: Held<T>, detail: string, cause?: unknown): void {
    held.settled = true;
    held.renewAt = Infinity;
    const reason = new LeaseLostError(held.task.name, detail, cause === undefined ? undefined : { cause });
    held.abort(reason);
    const buffered = this.#buffer.indexOf(held);
    if (buffered >= 0) {
      this.#buffer.splice(buffered, 1);
      this.#forget(held);
      this.#pump();
    }
    this.#metrics.leaseLost(this.#backend.queueName);
    this.#listeners.emit('lease-lost', held.task, reason);
  }
}
