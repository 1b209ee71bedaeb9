import type { ApiQueueRow } from './api-queue-store.js';
import { ApiQueues, type ApiQueueOptions } from './api-queues.js';
import type { Operator } from './audit-log.js';
import { systemClock, type Clock } from './clock.js';
import { CronService, type CronJobStatus, type CronServiceOptions } from './cron/cron-service.js';
import type { CronFiring } from './cron/cron-scheduler.js';
import { CRON_HISTORY_MAX, type CronFiringEntry } from './cron/cron-history.js';
import { requireIntegerIn } from './require-integer.js';
import type { PushDispatch, StartPushDispatch } from './push/dispatcher/push-dispatch.js';
import type { PushEvents } from './push/dispatcher/push-transport.js';
import { QueueError } from './errors.js';
import { isHeldByForm } from './generated-name.js';
import { silentLogger, type Logger } from './logger.js';
import type { QueueConfig, ServiceConfig } from './queue-config.js';
import { sameDefinition } from './queue-definitions.js';
import type { QueueContext } from './queue-context.js';
import { QueueOperations } from './queue-operations.js';
import type { QueueAttention } from './queue-attention.js';
import type { QueueOverview } from './queue-overview.js';
import { noTaskEvents, type TaskEvents } from './task-events.js';
import type { TaskStore } from './task-store.js';
import { TaskQueue } from './task-queue.js';
import { DEFAULT_TOMBSTONE_RETENTION_MS } from './tombstone.js';

export { DEFAULT_TOMBSTONE_RETENTION_MS } from './tombstone.js';

/** How long a dead letter is kept, unless configured: 7 days. */
export const DEFAULT_DEAD_LETTER_RETENTION_MS = 7 * 24 * 3600 * 1000;

export interface TaskQueueServiceOptions {
  /** How long deleted names stay held (default 7 days). */
  readonly tombstoneRetentionMs?: number;
  /** How long tasks dropped by the retry limit stay in the dead letters (default 7 days). */
  readonly deadLetterRetentionMs?: number;
  /** Told of tasks added, leased, deleted, lapsed and dead-lettered (metrics); default: nowhere. */
  readonly events?: TaskEvents;
  /** How often the cleanup job runs (default every minute; 0 = never). */
  readonly cleanupIntervalMs?: number;
  /** Where the cleanup job reports its runs and failures; default: nowhere. */
  readonly logger?: Logger;
  /** Node's clock for the rules that read it (name holds, push's included; the long-poll deadline); default the real one (tests step it). */
  readonly now?: Clock;
  /** Push delivery from this process; without it, none (the push queues' tasks wait for a process that delivers). */
  readonly push?: PushOptions;
  /** The cron jobs; without it, none are listed, fired or run. */
  readonly cron?: CronOptions;
  /** Queues made through the Cloud Tasks API (api-queues.ts); without it, none can be made. */
  readonly apiQueues?: ApiQueueOptions;
}

/** How the service runs push delivery. */
export interface PushOptions {
  /** Starts delivery over the composition's transport and store. */
  readonly start: StartPushDispatch;
  /** Whether `start()` starts it (else only `startDispatch()` does). */
  readonly dispatch: boolean;
  /** How long `close()` lets requests in flight finish, in ms. */
  readonly graceMs: number;
  /** Told of each push attempt (metrics). */
  readonly events?: PushEvents;
}

/** Who fires a cron job now when the caller names nobody: the hosting application's own call. */
const APPLICATION: Operator = { actor: 'anonymous', source: 'api' };

/** The cron jobs of the service: CronService's options but those the service gives (its queues and its logger). */
export interface CronOptions extends Omit<CronServiceOptions, 'add' | 'logger'> {
  /** Whether `start()` fires this process's jobs on their schedules. */
  readonly firing: boolean;
}

/**
 * The service a hosting application holds: a queue handle per configured
 * queue and its operator API, and the service's background work, started
 * by `start()` and stopped by `close()`: the periodic cleanup of tombstones
 * and lease history, push delivery, and the cron scheduler. They share its
 * clock (`now`), its events and its audit path (`operate()`).
 */
export class TaskQueueService {
  readonly #store: TaskStore;
  /** The file's queues and the API-made ones (`origin: 'api'`, last), which come and go. */
  #config: ServiceConfig;
  readonly #api: ApiQueues | null;
  readonly #queues = new Map<string, { readonly queue: TaskQueue; readonly ctx: QueueContext }>();
  readonly #retentionMs: number;
  readonly #deadLetterRetentionMs: number;
  readonly #events: TaskEvents;
  readonly #logger: Logger;
  readonly #now: Clock;
  readonly #cleanupIntervalMs: number;
  readonly #push: PushOptions | null;
  readonly #cron: CronService | null;
  readonly #cronFiring: boolean;
  #cleanupTimer: NodeJS.Timeout | null = null;
  #cleanupRunning: Promise<unknown> | null = null;
  #dispatch: PushDispatch | null = null;
  #started = false;
  #closed = false;

  constructor(
    store: TaskStore,
    config: ServiceConfig,
    queueIds: ReadonlyMap<string, number>,
    options: TaskQueueServiceOptions = {},
  ) {
    this.#store = store;
    this.#config = config;
    this.#retentionMs = options.tombstoneRetentionMs ?? DEFAULT_TOMBSTONE_RETENTION_MS;
    this.#deadLetterRetentionMs = options.deadLetterRetentionMs ?? DEFAULT_DEAD_LETTER_RETENTION_MS;
    this.#events = options.events ?? noTaskEvents;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? systemClock;
    this.#cleanupIntervalMs = options.cleanupIntervalMs ?? 60_000;
    this.#push = options.push ?? null;
    for (const queue of config.queues) {
      const id = queueIds.get(queue.name);
      if (id === undefined)
        throw new QueueError('INTERNAL_ERROR', `queue "${queue.name}" has no id`, { queue: queue.name });
      this.#setEntry(queue, id);
    }
    this.#api =
      options.apiQueues === undefined
        ? null
        : new ApiQueues(options.apiQueues, store, (rows) => this.#applyApiQueues(rows), this.#logger);
    const cron = options.cron;
    this.#cronFiring = cron?.firing ?? false;
    this.#cron =
      cron === undefined
        ? null
        : new CronService({
            ...cron,
            add: (queue, task, transaction) => this.getQueue(queue).add(task, transaction ? { transaction } : {}),
            logger: this.#logger,
          });
  }

  /**
   * Starts the background work: the cleanup job (unless its interval is
   * 0), push delivery (when `push.dispatch`) and the cron scheduler (when
   * `cron.firing`). Once; `close()` stops them.
   */
  start(): this {
    if (this.#started || this.#closed) return this;
    this.#started = true;
    if (this.#cleanupIntervalMs > 0) {
      this.#cleanupTimer = setInterval(() => void this.#scheduledCleanup(), this.#cleanupIntervalMs);
      this.#cleanupTimer.unref();
    }
    if (this.#push?.dispatch) this.startDispatch();
    if (this.#cronFiring) this.#cron?.start();
    this.#api?.start();
    return this;
  }

  #setEntry(queue: QueueConfig, id: number): void {
    const ctx: QueueContext = {
      store: this.#store,
      config: queue,
      ...(this.#config.targetRoutes === undefined ? {} : { routes: this.#config.targetRoutes }),
      ref: { queueId: id, queueName: queue.name },
      events: this.#events,
      tombstoneRetentionMs: this.#retentionMs,
      now: this.#now,
    };
    this.#queues.set(queue.name, { queue: new TaskQueue(ctx), ctx });
  }

  /** The push queues this process dispatches, with their ids. */
  #pushQueues(): { queueId: number; config: QueueConfig }[] {
    return this.#config.queues
      .filter((queue) => queue.mode === 'push')
      .map((config) => ({ queueId: this.#entry(config.name).queue.id, config }));
  }

  /**
   * Serves these API-made queues from now on: a queue gone (deleted) loses
   * its handle, a changed one gets a new handle (handles taken earlier keep
   * the settings they had), a new one gets its first; the file's queues are
   * untouched (a name in both stays the file's), and push delivery follows.
   */
  #applyApiQueues(rows: readonly ApiQueueRow[]): void {
    const file = this.#config.queues.filter((queue) => queue.origin !== 'api');
    const fileNames = new Set(file.map((queue) => queue.name));
    const wanted = new Map(rows.filter((row) => !fileNames.has(row.config.name)).map((row) => [row.config.name, row]));
    for (const [name, { queue, ctx }] of this.#queues) {
      if (ctx.config.origin !== 'api') continue;
      const row = wanted.get(name);
      if (row === undefined || row.id !== queue.id || !sameDefinition(row.config, ctx.config))
        this.#queues.delete(name);
    }
    for (const row of wanted.values()) if (!this.#queues.has(row.config.name)) this.#setEntry(row.config, row.id);
    this.#config = { ...this.#config, queues: [...file, ...[...wanted.values()].map((row) => row.config)] };
    this.#dispatch?.update(this.#pushQueues());
  }

  /** Makes a queue through the Cloud Tasks API (api-queues.ts), audited as `operator`; served here once this resolves. */
  createQueue(queue: QueueConfig, operator: Operator): Promise<QueueConfig> {
    return this.#apiQueues().create(queue, operator);
  }

  /** Replaces an API-made queue's settings; a file's queue is refused (QUEUE_OWNED_ELSEWHERE). */
  updateQueue(queue: QueueConfig, operator: Operator): Promise<QueueConfig> {
    return this.#apiQueues().update(queue, operator);
  }

  /** Deletes an API-made queue (its name held, its tasks purged); a file's queue is refused. */
  deleteQueue(name: string, operator: Operator): Promise<void> {
    return this.#apiQueues().delete(name, operator);
  }

  /** Reads the API-made queues now instead of at the next check (tests, tools). */
  reloadApiQueues(): Promise<void> {
    return this.#api?.reload() ?? Promise.resolve();
  }

  /** Who defines a served queue: its file or the Cloud Tasks API. UNKNOWN_QUEUE otherwise. */
  queueSource(name: string): 'file' | 'api' {
    return this.#entry(name).ctx.config.origin === 'api' ? 'api' : 'file';
  }

  #apiQueues(): ApiQueues {
    if (this.#api === null) throw new QueueError('INVALID_REQUEST', 'this service keeps no API-made queues');
    return this.#api;
  }

  /** Starts delivering push tasks from this process, if it does not already (and can: given `push`). */
  startDispatch(options: { readonly events?: PushEvents } = {}): void {
    if (this.#push === null || this.#dispatch !== null || this.#closed) return;
    const events = options.events ?? this.#push.events;
    this.#dispatch = this.#push.start({
      queues: this.#pushQueues(),
      // Node's clock, the service's: a generated name's time was written by it.
      heldByForm: (name) => isHeldByForm(name, this.#now(), this.#retentionMs),
      ...(events ? { events } : {}),
    });
  }

  /** Claims no more push tasks; requests in flight get `graceMs` to finish. `close()` does this too. */
  async stopDispatch(graceMs: number): Promise<void> {
    const running = this.#dispatch;
    this.#dispatch = null;
    await running?.stop(graceMs);
  }

  /** Every cron job the servers recorded, with its last firing and outcome and its next three firings. */
  cronJobs(): Promise<CronJobStatus[]> {
    return this.#cron?.list() ?? Promise.resolve([]);
  }

  /**
   * A cron job's latest firings, newest first, each with its outcome
   * (delivered, retrying, failed, pending): at most `limit` (1 to
   * CRON_HISTORY_MAX). UNKNOWN_TASK if no server recorded the job.
   */
  cronHistory(name: string, limit = 20): Promise<CronFiringEntry[]> {
    requireIntegerIn(limit, 'limit', 1, CRON_HISTORY_MAX);
    if (this.#cron === null) throw new QueueError('UNKNOWN_TASK', `no cron job named "${name}"`, { field: 'job' });
    return this.#cron.history(name, limit);
  }

  /**
   * Fires a cron job now, once, outside its schedule (UNKNOWN_TASK if no
   * server recorded it). A firing that added its task is an operator action
   * on the job's queue, recorded through `operate()` as every other is
   * (`cron_run`, as `operator`; default: the application's own call).
   */
  async runCronJob(name: string, operator: Operator = APPLICATION): Promise<CronFiring> {
    if (this.#cron === null) throw new QueueError('UNKNOWN_TASK', `no cron job named "${name}"`, { field: 'job' });
    const firing = await this.#cron.run(name);
    if (firing.outcome === 'added') await this.operate(firing.queue, operator).recordCronRun(firing.task);
    return firing;
  }

  /** The configuration the service runs with. */
  get config(): ServiceConfig {
    return this.#config;
  }

  /** A round trip to the database (health checks); fails when it does not answer. */
  ping(): Promise<void> {
    return this.#store.ping();
  }

  /** The handle of a configured queue; UNKNOWN_QUEUE otherwise. */
  getQueue(name: string): TaskQueue {
    return this.#entry(name).queue;
  }

  /**
   * The operator API of a configured queue (pause, resume, purge, redrive,
   * release, delete, import, export, browse, dead letters, counts), acting
   * as `operator`: every action that changes the queue is recorded in the
   * audit log under its actor and source (see queue-operations.ts).
   * UNKNOWN_QUEUE for a queue that is not configured.
   */
  operate(name: string, operator: Operator): QueueOperations {
    const { queue, ctx } = this.#entry(name);
    return new QueueOperations(ctx, queue, operator);
  }

  #entry(name: string): { readonly queue: TaskQueue; readonly ctx: QueueContext } {
    const entry = this.#queues.get(name);
    if (!entry) {
      throw new QueueError('UNKNOWN_QUEUE', `queue "${name}" is not defined in ${this.#config.source}`, {
        queue: name,
      });
    }
    return entry;
  }

  /** The configured queues. */
  queues(): QueueConfig[] {
    return [...this.#config.queues];
  }

  /** Where task events go (metrics). */
  get events(): TaskEvents {
    return this.#events;
  }

  /**
   * Every configured queue at a glance (state, depth by task state, oldest
   * available age, lease counts, dead letters, storage, limits), from one
   * query, in configuration order; with `names`, only those queues (the
   * query then reads only theirs).
   */
  async overview(names?: readonly string[]): Promise<QueueOverview[]> {
    const wanted = names === undefined ? null : new Set(names);
    const ids = [...this.#queues.values()]
      .filter(({ queue }) => wanted === null || wanted.has(queue.name))
      .map(({ queue }) => queue.id);
    if (ids.length === 0) return [];
    const rows = await this.#store.overview({ queueIds: ids });
    const byName = new Map(rows.map((row) => [row.name, row]));
    return this.#config.queues.flatMap((queue) => byName.get(queue.name) ?? []);
  }

  /**
   * The given queues' failures the overview does not show (failing push
   * deliveries, dead letters arrived in the last `deadLetterSeconds`), from
   * one query bounded per queue, for the console's triage.
   */
  async attention(
    names: readonly string[],
    options: { readonly deadLetterSeconds: number },
  ): Promise<QueueAttention[]> {
    const wanted = new Set(names);
    const ids = [...this.#queues.values()].filter(({ queue }) => wanted.has(queue.name)).map(({ queue }) => queue.id);
    if (ids.length === 0) return [];
    return this.#store.attention({ queueIds: ids, deadLetterSeconds: options.deadLetterSeconds });
  }

  /** Runs the cleanup job once (it also runs on a timer). Concurrent calls share one run. */
  runCleanup(): Promise<unknown> {
    this.#cleanupRunning ??= this.#store
      .cleanup({
        tombstoneRetentionMs: this.#retentionMs,
        deadLetterRetentionMs: this.#deadLetterRetentionMs,
        batchSize: 5000,
      })
      .finally(() => {
        this.#cleanupRunning = null;
      });
    return this.#cleanupRunning;
  }

  /** One timed run of the cleanup job: a log line for each run, and failures logged instead of lost. */
  async #scheduledCleanup(): Promise<void> {
    const started = Date.now();
    try {
      const result = await this.runCleanup();
      this.#logger.info({ ...(result as object), ms: Date.now() - started }, 'maintenance run');
    } catch (error) {
      this.#logger.warn({ err: error, ms: Date.now() - started }, 'maintenance run failed');
    }
  }

  /**
   * Stops the background work and closes, in the order that loses nothing:
   * the cron scheduler (no new firings), push delivery (requests in flight
   * get `push.graceMs`), the workers of its queues (`queue.work`: each
   * drains within its grace period and releases what it still holds), the
   * cleanup job, and then the database (when the service opened it). A
   * hosting application that closes the service on SIGTERM drains so.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#api?.stop();
    await this.#cron?.stop();
    await this.stopDispatch(this.#push?.graceMs ?? 0);
    await Promise.all([...this.#queues.values()].map(({ queue }) => queue.stopWorkers()));
    if (this.#cleanupTimer) clearInterval(this.#cleanupTimer);
    await this.#cleanupRunning?.catch(() => {});
    await this.#store.close();
  }
}
