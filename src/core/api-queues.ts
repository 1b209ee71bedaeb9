import type { ApiQueueRow, ApiQueueStore } from './api-queue-store.js';
import type { AuditAction, AuditIntent, Operator } from './audit-log.js';
import { QueueError } from './errors.js';
import { silentLogger, type Logger } from './logger.js';
import { QUEUE_NAME_PATTERN, type QueueConfig } from './queue-config.js';
import type { TaskStore } from './task-store.js';

/** How the service keeps queues made through the Cloud Tasks API. */
export interface ApiQueueOptions {
  readonly store: ApiQueueStore;
  /** How long a deleted queue's name is held before it can be made again (the tombstone retention: 7 days by default). */
  readonly holdMs: number;
  /** How often to look for changes other processes made, in ms (default 1000; 0 = only when asked). */
  readonly checkMs?: number;
  /** The queue as this process serves it (its push base URL resolved); default as given. */
  readonly resolve?: (queue: QueueConfig) => QueueConfig;
}

/**
 * The queues made through the Cloud Tasks API (queues.create), kept in the
 * database beside the file's (sql/0021). Changes are the core's, each one
 * audited (`create_queue`, `update_queue`, `delete_queue`) as the operator
 * who asked; every process reads the store's version once a second
 * (`checkMs`) and, when it moved, reloads the list and hands it to `apply`
 * (the service swaps its queue handles and push loops), so a queue made
 * on one server is served and dispatched by all within a second. The
 * process that made the change applies it before answering.
 */
export class ApiQueues {
  readonly #options: ApiQueueOptions;
  readonly #tasks: TaskStore;
  readonly #apply: (rows: readonly ApiQueueRow[]) => void;
  readonly #logger: Logger;
  #version: number | null = null;
  #reloading: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setInterval> | null = null;
  #failing = false;

  constructor(
    options: ApiQueueOptions,
    tasks: TaskStore,
    apply: (rows: readonly ApiQueueRow[]) => void,
    logger: Logger = silentLogger,
  ) {
    this.#options = options;
    this.#tasks = tasks;
    this.#apply = apply;
    this.#logger = logger;
  }

  /** The queue as this process serves it. */
  resolve(queue: QueueConfig): QueueConfig {
    const origin: QueueConfig = { ...queue, origin: 'api' };
    return this.#options.resolve?.(origin) ?? origin;
  }

  /** Starts watching for other processes' changes (once a second by default). */
  start(): void {
    const every = this.#options.checkMs ?? 1000;
    if (every <= 0 || this.#timer !== null) return;
    this.#timer = setInterval(() => void this.check(), every);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Reloads the API-made queues when their version moved since the last load; failures are logged, not thrown. */
  async check(): Promise<void> {
    try {
      const version = await this.#options.store.apiQueuesVersion();
      if (version !== this.#version) await this.reload(version);
      if (this.#failing) this.#logger.info({}, 'API-made queues: reading them again');
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) this.#logger.warn({ err: error }, 'API-made queues: could not read them; trying again');
      this.#failing = true;
    }
  }

  /** Loads the list now (one load at a time) and applies it. */
  reload(version?: number): Promise<void> {
    this.#reloading = this.#reloading
      .catch(() => {})
      .then(async () => {
        const known = version ?? (await this.#options.store.apiQueuesVersion());
        const rows = await this.#options.store.listApiQueues();
        this.#version = known;
        this.#apply(rows.map((row) => ({ id: row.id, config: this.resolve(row.config) })));
      });
    return this.#reloading;
  }

  /** Makes a queue (see ApiQueueStore.createApiQueue for the refusals), served here once this resolves. */
  async create(queue: QueueConfig, operator: Operator): Promise<QueueConfig> {
    requireQueueName(queue.name);
    const config = this.resolve(queue);
    await this.#options.store.createApiQueue({
      config,
      holdMs: this.#options.holdMs,
      audit: intent(operator, 'create_queue', queue.name),
    });
    await this.reload();
    return config;
  }

  /** Replaces an API-made queue's settings; a file's queue is QUEUE_OWNED_ELSEWHERE (its file owns it). */
  async update(queue: QueueConfig, operator: Operator): Promise<QueueConfig> {
    requireQueueName(queue.name);
    const config = this.resolve(queue);
    await this.#options.store.updateApiQueue({ config, audit: intent(operator, 'update_queue', queue.name) });
    await this.reload();
    return config;
  }

  /**
   * Deletes an API-made queue: it stops being served at once (everywhere
   * within a second), its name is held for `holdMs`, and its tasks go as a
   * purge takes them (tombstoned, recorded as a `purge` of that many).
   */
  async delete(name: string, operator: Operator): Promise<void> {
    requireQueueName(name);
    const queueId = await this.#options.store.deleteApiQueue({ name, audit: intent(operator, 'delete_queue', name) });
    await this.reload();
    const purged = await this.#tasks.purgeTasks({ queueId, queueName: name, batchSize: 1000 });
    if (purged > 0) await this.#tasks.recordAudit({ ...intent(operator, 'purge', name), count: purged });
  }
}

function intent(operator: Operator, action: AuditAction, queue: string): AuditIntent {
  if (
    typeof operator?.actor !== 'string' ||
    operator.actor === '' ||
    typeof operator.source !== 'string' ||
    operator.source === ''
  ) {
    throw new QueueError('INVALID_REQUEST', 'an operator needs an actor and a source (for the audit log)', { queue });
  }
  return { actor: operator.actor, source: operator.source, action, queue, target: null };
}

function requireQueueName(name: string): void {
  if (typeof name !== 'string' || !QUEUE_NAME_PATTERN.test(name)) {
    throw new QueueError(
      'INVALID_QUEUE_NAME',
      `a queue name is letters, digits and hyphens, 1 to 100 characters; got ${JSON.stringify(String(name).slice(0, 120))}`,
      { field: 'name' },
    );
  }
}
