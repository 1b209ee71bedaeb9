import type { CronFiringEntry } from '../core/cron/cron-history.js';
import type { AuthStore } from '../auth/auth-store.js';
import type { AuditLog, Operator } from '../core/audit-log.js';
import type { CronFiring } from '../core/cron/cron-scheduler.js';
import type { CronJobStatus } from '../core/cron/cron-service.js';
import type { DepthHistory } from '../core/depth-history.js';
import { silentLogger } from '../core/logger.js';
import type { PushEvents } from '../core/push/dispatcher/push-transport.js';
import type { PoolStats } from '../core/pool-stats.js';
import type { QueueConfig, ServiceConfig } from '../core/queue-config.js';
import type { QueueOperations } from '../core/queue-operations.js';
import type { QueueAttention } from '../core/queue-attention.js';
import type { QueueOverview } from '../core/queue-overview.js';
import type { TaskQueue } from '../core/task-queue.js';
import { TaskQueueService, type TaskQueueServiceOptions } from '../core/task-queue-service.js';
import { PgAuditLog } from '../store/audit-log.js';
import type { EngineKind, OpenDatabase } from '../store/engine/database.js';
import { DefinitionsWatch, type DefinitionsStatus } from '../store/definitions/definitions-watch.js';
import { PgDepthHistory } from '../store/depth-history.js';
import { latestMigration } from '../store/migrate/migrate.js';
import type { PgAuthStore } from '../store/pg-auth-store.js';
import type { PgTaskStore } from '../store/pg-task-store.js';

/**
 * The service `openTaskQueue` resolves to: queue handles for producers and
 * consumers, the operator API, the overview, and the service's facts.
 */
export interface OpenTaskQueue {
  /** The configuration the service runs with. */
  readonly config: ServiceConfig;
  /** The handle of a configured queue; UNKNOWN_QUEUE otherwise. */
  getQueue(name: string): TaskQueue;
  /** The configured queues. */
  queues(): QueueConfig[];
  /** The operator API of a queue, acting as `operator`; its actions are recorded in the audit log. */
  operate(name: string, operator: Operator): QueueOperations;
  /** Every configured queue at a glance (or only `names`), from one query. */
  overview(names?: readonly string[]): Promise<QueueOverview[]>;
  /** The given queues' failing push deliveries and recent dead letters (the console's triage), bounded per queue. */
  attention(names: readonly string[], options: { readonly deadLetterSeconds: number }): Promise<QueueAttention[]>;
  /** Runs the cleanup job once (it also runs on a timer). */
  runCleanup(): Promise<unknown>;
  /** A round trip to the database (health checks). */
  ping(): Promise<void>;
  /** Stops cron, push delivery, the workers and the cleanup job, then closes the database (unless the caller gave its own). */
  close(): Promise<void>;
  /** The project id of the REST paths. */
  readonly project: string;
  /** Which engine runs the SQL. */
  readonly engine: EngineKind;
  /** The schema of the service's tables. */
  readonly schema: string;
  /** Where the local token issuer keeps its signing keys (the same database and schema). */
  readonly authStore: AuthStore;
  /**
   * The operators' audit log (the same database and schema), to read: the
   * core's actions record into it themselves, so a hosting application
   * cannot write an entry no action made.
   */
  readonly auditLog: Pick<AuditLog, 'list'>;
  /** The console's samples of queue depth (the same database and schema). */
  readonly depthHistory: DepthHistory;
  /** The migrations applied to the schema now (`current`; TRANSIENT_ERROR when the schema is gone) and the latest this package ships. */
  schemaStatus(): Promise<{ readonly current: number; readonly latest: number }>;
  /** The PostgreSQL connection pool's figures now; null on the embedded engine. */
  poolStats(): PoolStats | null;
  /** Starts delivering push tasks from this process, if it does not already (see `dispatch`). */
  startDispatch(options?: { readonly events?: PushEvents }): void;
  /** Claims no more push tasks; requests in flight get `graceMs` to finish. `close()` does this too. */
  stopDispatch(graceMs: number): Promise<void>;
  /** Every cron job the servers recorded, with its last firing and outcome and its next three firings. */
  cronJobs(): Promise<CronJobStatus[]>;
  /** Fires a cron job now, once, outside its schedule (UNKNOWN_TASK if no server recorded it); audited as `operator` (default: anonymous, source `api`). */
  runCronJob(name: string, operator?: Operator): Promise<CronFiring>;
  /** A cron job's latest firings (at most `limit`, default 20), newest first, each with its outcome (cron-history.ts). */
  cronHistory(name: string, limit?: number): Promise<CronFiringEntry[]>;
  /** The revision of the queue definitions this process serves and the database's newest (differing: restart it). */
  definitionsStatus(): Promise<DefinitionsStatus>;
  /** Makes a queue through the Cloud Tasks API, audited as `operator` (docs/cloud-tasks.md); served here once this resolves. */
  createQueue(queue: QueueConfig, operator: Operator): Promise<QueueConfig>;
  /** Replaces an API-made queue's settings; a file's queue is refused (its file owns it). */
  updateQueue(queue: QueueConfig, operator: Operator): Promise<QueueConfig>;
  /** Deletes an API-made queue: its name is held, its tasks purged; a file's queue is refused. */
  deleteQueue(name: string, operator: Operator): Promise<void>;
  /** Reads the API-made queues now rather than at the next check (each process checks once a second). */
  reloadApiQueues(): Promise<void>;
  /** Who defines a served queue: its file, or the Cloud Tasks API. */
  queueSource(name: string): 'file' | 'api';
}

/** Where a hosted service runs: its database, store and schema, and what the composition built beside it. */
export interface HostedParts {
  readonly database: OpenDatabase;
  readonly store: PgTaskStore;
  readonly schema: string;
  readonly project: string;
  readonly authStore: PgAuthStore;
  /** The revision of the queue definitions this process serves (null: none written). */
  readonly revision: number | null;
  /** How often to look for a newer revision, in ms (0 = only when asked). */
  readonly definitionsCheckMs: number;
}

/**
 * The core's service as `openTaskQueue` hands it out: TaskQueueService (the
 * queues, the operator API, the background work and its lifecycle) plus
 * the facts of where it runs, read from its database.
 */
export class HostedTaskQueue extends TaskQueueService implements OpenTaskQueue {
  readonly project: string;
  readonly engine: EngineKind;
  readonly schema: string;
  readonly authStore: AuthStore;
  readonly auditLog: Pick<AuditLog, 'list'>;
  readonly depthHistory: DepthHistory;
  readonly #parts: HostedParts;
  /** Tells whether a newer revision of the queue definitions was written; stopped on close. */
  readonly #watch: DefinitionsWatch;

  constructor(
    parts: HostedParts,
    config: ServiceConfig,
    queueIds: ReadonlyMap<string, number>,
    options: TaskQueueServiceOptions,
  ) {
    super(parts.store, config, queueIds, options);
    this.#parts = parts;
    const ctx = { db: parts.database.db, schema: parts.schema };
    const auditLog = new PgAuditLog(ctx);
    this.project = parts.project;
    this.engine = parts.database.engine;
    this.schema = parts.schema;
    this.authStore = parts.authStore;
    this.auditLog = { list: (listOptions) => auditLog.list(listOptions) };
    this.depthHistory = new PgDepthHistory(ctx);
    // Last: a constructor that throws leaves no timer behind.
    this.#watch = new DefinitionsWatch({
      ctx,
      serving: parts.revision,
      logger: options.logger ?? silentLogger,
      intervalMs: parts.definitionsCheckMs,
    });
  }

  async schemaStatus(): Promise<{ readonly current: number; readonly latest: number }> {
    return { current: await this.#parts.store.schemaVersion(), latest: await latestMigration() };
  }

  poolStats(): PoolStats | null {
    const pool = this.#parts.database.pool;
    return pool
      ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 }
      : null;
  }

  definitionsStatus(): Promise<DefinitionsStatus> {
    return this.#watch.status();
  }

  override async close(): Promise<void> {
    this.#watch.stop();
    await super.close();
  }
}
