import type { PoolStats } from './core/pool-stats.js';
import { resolve } from 'node:path';
import type { AuthStore } from './auth/auth-store.js';
import { cronScheduleOf, requireCronQueues, scheduledCronJobs, withCronQueue } from './config/cron-queue.js';
import { DEFAULT_CONFIG_FILES, resolveConfig, resolveCron } from './config/resolve-config.js';
import type { CronConfig } from './core/cron-job.js';
import type { CronClock, CronEvents, CronFiring } from './core/cron-scheduler.js';
import { CronService, type CronJobStatus } from './core/cron-service.js';
import { settingsFromEnvironment, type Environment, type ServiceSettings } from './config/service-settings.js';
import type { AuditLog, Operator } from './core/audit-log.js';
import type { Clock } from './core/clock.js';
import type { DepthHistory } from './core/depth-history.js';
import { QueueError } from './core/errors.js';
import { silentLogger, type Logger } from './core/logger.js';
import { withPushBaseUrl, type QueueConfig, type ServiceConfig } from './core/queue-config.js';
import type { DefinitionsRole } from './core/queue-definitions.js';
import type { PushEvents } from './core/dispatcher/push-transport.js';
import type { QueueOperations } from './core/queue-operations.js';
import type { QueueOverview } from './core/queue-overview.js';
import type { TaskQueue } from './core/task-queue.js';
import type { TaskEvents } from './core/task-events.js';
import { DEFAULT_LOCAL_ISSUER } from './auth/local-issuer.js';
import { PushTokenSigner } from './auth/push-token-signer.js';
import { startPushDispatch, type PushDispatch } from './push/start-dispatch.js';
import { TaskQueueService } from './core/task-queue-service.js';
import { PgAuditLog } from './store/audit-log.js';
import { configuredQueues } from './store/configured-queues.js';
import { DefinitionsWatch, type DefinitionsStatus } from './store/definitions-watch.js';
import { logQueues } from './core/log-queues.js';
import { settleQueueDefinitions } from './store/settle-queue-definitions.js';
import { openDatabase, type DatabaseOptions, type EngineKind, type OpenDatabase } from './store/database.js';
import { PgDepthHistory } from './store/depth-history.js';
import { latestMigration, migrate } from './store/migrate.js';
import { prepareSqlApi } from './store/sql-api-settings.js';
import { PgAuthStore } from './store/pg-auth-store.js';
import { PgCronStore } from './store/pg-cron-store.js';
import { PgTaskStore } from './store/pg-task-store.js';
import { validateSchemaName } from './store/schema-name.js';
import { waitForDatabase } from './store/wait-for-database.js';

/** Options of `openTaskQueue`; each defaults to the environment (DATABASE_URL, TASKQUEUE_*). */
export interface OpenTaskQueueOptions {
  /** PostgreSQL connection string; absent (and no DATABASE_URL) = embedded PGlite. */
  readonly databaseUrl?: string | null;
  /**
   * Path to queue.xml or queue.yaml, or a validated configuration (default ./queue.xml, else ./queue.yaml; with none, the
   * database's queues, written by none; a fresh database gets a sample). It must agree with the database's, unless `ownQueues`.
   */
  readonly config?: string | ServiceConfig;
  /** Write `config` (given or found, never the sample) as the queue definitions, retiring queues it lacks (default false; `taskqueue serve` does). */
  readonly ownQueues?: boolean;
  /** Write an owner's configuration even if an earlier revision wrote it and a later one replaced it (`config sync --force`). */
  readonly forceQueues?: boolean;
  /** App Engine `target` to base URL, for push queues and cron jobs (default TASKQUEUE_TARGET_URLS). */
  readonly targetUrls?: ReadonlyMap<string, string>;
  /** The project id the REST paths name. */
  readonly project?: string;
  /** The embedded engine's data directory; `':memory:'` keeps it in memory. */
  readonly dataDir?: string;
  /** Schema of the service's tables (default `taskqueue`). */
  readonly schema?: string;
  /** PostgreSQL pool size (default 10). */
  readonly poolSize?: number;
  /**
   * Named prepared statements (default true, or TASKQUEUE_PREPARED_STATEMENTS).
   * False behind a pooler in transaction mode (PgBouncer): statements run
   * unnamed and no setting is given at connect.
   */
  readonly preparedStatements?: boolean;
  /**
   * A direct PostgreSQL URL for LISTEN (default TASKQUEUE_LISTEN_DATABASE_URL),
   * when databaseUrl goes through a pooler. Without one, and with prepared
   * statements off, long-polling leases poll instead of being notified.
   */
  readonly listenDatabaseUrl?: string | null;
  /** How long deleted names stay held, in days (default 7). */
  readonly tombstoneDays?: number;
  /** How long tasks dropped by the retry limit stay in the dead letters, in days (default 7). */
  readonly deadLetterDays?: number;
  /** How often the cleanup job runs, in ms (default 60000; 0 = never). */
  readonly cleanupIntervalMs?: number;
  /** Told of tasks added, leased, deleted, lapsed and dead-lettered (metrics); default: nowhere. */
  readonly events?: TaskEvents;
  /** Where the service logs (config loaded, migrations applied, database lost and regained, maintenance runs); default: nowhere. */
  readonly logger?: Logger;
  /**
   * How long to wait for a PostgreSQL server that does not answer yet, in seconds, retrying with
   * back-off and a log line per attempt (default 0: one attempt; the server passes TASKQUEUE_DB_WAIT_SECONDS).
   */
  readonly databaseWaitSeconds?: number;
  /** Environment to take defaults from (default: the process's). */
  readonly env?: Environment;
  /** Deliver push tasks from this process (default true, or TASKQUEUE_DISPATCH). */
  readonly dispatch?: boolean;
  /** Base URL of push queues without `<target-url>` (default TASKQUEUE_PUSH_BASE_URL). */
  readonly pushBaseUrl?: string | null;
  /** Sign each push request's Bearer token with the local issuer's key (default true, or TASKQUEUE_PUSH_SIGNING). */
  readonly pushSigning?: boolean;
  /** The `iss` of push tokens (default the local issuer's, `urn:taskqueue:local`). */
  readonly pushIssuer?: string;
  /** Told of each push attempt (metrics). */
  readonly pushEvents?: PushEvents;
  /** How long `close()` lets push requests in flight finish, in ms (default TASKQUEUE_SHUTDOWN_GRACE_SECONDS). */
  readonly shutdownGraceMs?: number;
  /** The cron.yaml / cron.xml path, or its jobs, or false for none (default TASKQUEUE_CRON, else ./cron.yaml, else ./cron.xml). */
  readonly cron?: string | CronConfig | false;
  /** Fire the cron jobs from this process (default true; every process may: each firing is one task). */
  readonly cronFiring?: boolean;
  /** Told of each cron firing this process tries (metrics). */
  readonly cronEvents?: CronEvents;
}

/** What the wiring (servers, the CLI, tests) may give besides the public options. */
export interface WiringOptions extends OpenTaskQueueOptions {
  /** Use this database instead of opening one (a `pglite-instance` is the caller's to close). */
  readonly database?: DatabaseOptions;
  /** Node's clock for name holds and long-poll deadlines (tests). */
  readonly now?: Clock;
  /** The cron scheduler's clock (tests; default the database's now()). */
  readonly cronClock?: CronClock;
  /** How often to look for newer queue definitions, in ms (default 10000; 0 = only when asked). */
  readonly definitionsCheckMs?: number;
}

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
  /** Runs the cleanup job once (it also runs on a timer). */
  runCleanup(): Promise<unknown>;
  /** A round trip to the database (health checks). */
  ping(): Promise<void>;
  /** Stops the cleanup job and closes the database (unless the caller gave its own). */
  close(): Promise<void>;
  /** The project id of the REST paths. */
  readonly project: string;
  /** Which engine runs the SQL. */
  readonly engine: EngineKind;
  /** The schema of the service's tables. */
  readonly schema: string;
  /** Where the local token issuer keeps its signing keys (the same database and schema). */
  readonly authStore: AuthStore;
  /** The operators' audit log (the same database and schema): the core records into it, the console lists it. */
  readonly auditLog: AuditLog;
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
  /** The revision of the queue definitions this process serves and the database's newest (differing: restart it). */
  definitionsStatus(): Promise<DefinitionsStatus>;
}

export type { PoolStats, DefinitionsStatus };
export { DEFAULT_CONFIG_FILES };

/**
 * Opens the task queue service in this process: loads and validates the
 * queue configuration, opens the database (PostgreSQL, or embedded PGlite),
 * applies migrations under an advisory lock, and writes the configured
 * queues to it or checks them against its own (settle-queue-definitions.ts).
 *
 * ```ts
 * const tq = await openTaskQueue({ config: './queue.xml' });
 * const queue = tq.getQueue('pull-queue');
 * await queue.add({ payload: 'hello', tag: 'greetings' });
 * const tasks = await queue.leaseTasks({ lease: 60, unit: 'seconds', maxTasks: 10 });
 * for (const task of tasks) { work(task.payload); await queue.deleteTask(task); }
 * await tq.close();
 * ```
 */
export async function openTaskQueue(options: WiringOptions = {}, defaultEnv?: Environment): Promise<OpenTaskQueue> {
  return (await openServiceParts(options, defaultEnv)).service;
}

/** The service with what the wiring and tests reach below it: the store and the database. */
export interface ServiceParts {
  readonly service: OpenTaskQueue;
  readonly store: PgTaskStore;
  readonly database: OpenDatabase;
}

/** openTaskQueue, also handing out the store and the database (for tests and tools; not public). */
export async function openServiceParts(options: WiringOptions = {}, defaultEnv?: Environment): Promise<ServiceParts> {
  const env = options.env ?? defaultEnv ?? {};
  const settings = settingsFromEnvironment(env);
  const schema = validateSchemaName(options.schema ?? settings.schema);
  const logger = options.logger ?? silentLogger;
  const pushBaseUrl = options.pushBaseUrl === undefined ? settings.pushBaseUrl : options.pushBaseUrl;
  const routes = options.targetUrls ?? settings.targetUrls;
  const cron = await resolveCron(options.cron === undefined ? settings.cronPath : options.cron);
  const given = withPushBaseUrl(
    withCronQueue(await resolveConfig(options.config ?? settings.configPath, settings), cron),
    pushBaseUrl,
    routes,
  );
  const role: DefinitionsRole = given.source === 'built-in' ? 'use' : options.ownQueues === true ? 'own' : 'check';
  logger.info({ source: given.source, queues: given.queues.length, role }, 'config loaded');
  if (cron !== null) logger.info({ source: cron.source, jobs: cron.jobs.length }, 'cron jobs loaded');

  const databaseOptions: DatabaseOptions = options.database ?? databaseOptionsFor(options, settings);
  if (databaseOptions.kind === 'postgres' && (options.databaseWaitSeconds ?? 0) > 0) {
    await waitForDatabase(databaseOptions.url, { waitSeconds: options.databaseWaitSeconds ?? 0, logger });
  }
  const database = await openDatabase(databaseOptions);
  const ownsDatabase = options.database === undefined || options.database.kind !== 'pglite-instance';
  const store = new PgTaskStore(database, schema, { ownsDatabase, logger });
  try {
    const migrated = await migrate(database.db, schema);
    logger.info(
      { schema, applied: migrated.applied, version: migrated.current },
      migrated.applied.length > 0 ? 'migrations applied' : 'migrations current',
    );
    const settled = await settleQueueDefinitions({ db: database.db, schema }, given, role, {
      force: options.forceQueues ?? false,
      superseded: 'serve',
    });
    const config = settled.wrote ? given : withPushBaseUrl(settled.config, pushBaseUrl, routes);
    requireCronQueues(config, cron);
    logQueues(logger, config, {
      role,
      wrote: settled.wrote,
      revision: settled.revision,
      superseded: settled.superseded,
      routes,
      cronJobs: cron?.jobs ?? [],
    });
    await prepareSqlApi(database.db, schema, { tombstoneRetentionMs: tombstoneRetentionMs(options, settings), logger });
    return assemble(database, store, schema, config, settled.ids, options, settings, cron, settled.revision);
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
}

/**
 * The service an operator command works with on the database. Given a
 * configuration (`config`, or TASKQUEUE_CONFIG), it opens as a server
 * does: migrates and writes the configured queues, so `migrate` then
 * `add` works on a fresh database. Without one it serves the queues the
 * servers wrote to the database and never changes them, and never creates
 * a schema (a mistyped --schema must not leave one behind); one the
 * servers made is brought up to date.
 */
export async function openForOperators(
  options: WiringOptions & { readonly database: DatabaseOptions },
  defaultEnv?: Environment,
): Promise<OpenTaskQueue> {
  const env = options.env ?? defaultEnv ?? {};
  const settings = settingsFromEnvironment(env);
  if ((options.config ?? settings.configPath) !== null)
    return openTaskQueue({ cleanupIntervalMs: 0, ...options, dispatch: false, cronFiring: false }, env);
  const schema = validateSchemaName(options.schema ?? settings.schema);
  const database = await openDatabase(options.database);
  const store = new PgTaskStore(database, schema, { ownsDatabase: options.database.kind !== 'pglite-instance' });
  try {
    const where = database.engine === 'pglite' ? 'the embedded database' : 'the database';
    if (!(await store.schemaExists())) {
      throw new QueueError(
        'INVALID_CONFIG',
        `schema "${schema}" of ${where} holds no taskqueue tables; start the server once, or give the configuration ` +
          '(TASKQUEUE_CONFIG=queue.xml) and the command writes its queues as a server would; or check --schema / TASKQUEUE_SCHEMA',
      );
    }
    if ((await store.schemaVersion()) < (await latestMigration())) await migrate(database.db, schema);
    const { config: stored, ids, revision } = await configuredQueues({ db: database.db, schema });
    const pushBaseUrl = options.pushBaseUrl === undefined ? settings.pushBaseUrl : options.pushBaseUrl;
    const source = `${stored.source.replace('the database', where)} (no configuration given: TASKQUEUE_CONFIG=queue.xml or taskqueue config sync writes one)`;
    const config = withPushBaseUrl({ ...stored, source }, pushBaseUrl, options.targetUrls ?? settings.targetUrls);
    const wiring = { ...options, cleanupIntervalMs: 0, dispatch: false, definitionsCheckMs: 0 };
    return (await assemble(database, store, schema, config, ids, wiring, settings, null, revision?.revision ?? null))
      .service;
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
}

/** The service over an open, migrated database whose queues are written. */
async function assemble(
  database: OpenDatabase,
  store: PgTaskStore,
  schema: string,
  config: ServiceConfig,
  ids: ReadonlyMap<string, number>,
  options: WiringOptions,
  settings: ServiceSettings,
  cron: CronConfig | null,
  revision: number | null,
): Promise<ServiceParts> {
  const tombstoneRetention = tombstoneRetentionMs(options, settings);
  const core = new TaskQueueService(store, config, ids, {
    tombstoneRetentionMs: tombstoneRetention,
    deadLetterRetentionMs: (options.deadLetterDays ?? settings.deadLetterDays) * 24 * 3600 * 1000,
    ...(options.events === undefined ? {} : { events: options.events }),
    ...(options.cleanupIntervalMs === undefined ? {} : { cleanupIntervalMs: options.cleanupIntervalMs }),
    ...(options.now === undefined ? {} : { now: options.now }),
    logger: options.logger ?? silentLogger,
  });
  const project = options.project ?? settings.project;
  const authStore = new PgAuthStore({ db: database.db, schema });
  const auditLog = new PgAuditLog({ db: database.db, schema });
  const signer =
    (options.pushSigning ?? settings.pushSigning)
      ? new PushTokenSigner(authStore, {
          issuer: options.pushIssuer ?? DEFAULT_LOCAL_ISSUER.issuer,
          email: settings.pushIdentity ?? `taskqueue@${project}`,
        })
      : null;
  let dispatch: PushDispatch | null = null;
  const startDispatch = (start: { readonly events?: PushEvents } = {}) => {
    dispatch ??= startPushDispatch({
      store,
      config,
      queueIds: ids,
      tombstoneRetentionMs: tombstoneRetention,
      targetUrls: options.targetUrls ?? settings.targetUrls,
      logger: options.logger ?? silentLogger,
      ...(signer ? { signer: (audience: string) => signer.sign(audience) } : {}),
      ...start,
    });
  };
  const stopDispatch = async (graceMs: number) => {
    const running = dispatch;
    dispatch = null;
    await running?.stop(graceMs);
  };
  if (options.dispatch ?? settings.dispatch) startDispatch(options.pushEvents ? { events: options.pushEvents } : {});
  const cronService = new CronService({
    jobs: scheduledCronJobs(cron),
    store: new PgCronStore({ db: database.db, schema }),
    add: (queue, task, transaction) => core.getQueue(queue).add(task, transaction === undefined ? {} : { transaction }),
    scheduleOf: cronScheduleOf,
    logger: options.logger ?? silentLogger,
    ...(options.cronEvents ? { events: options.cronEvents } : {}),
    ...(options.cronClock ? { clock: options.cronClock } : {}),
    auditLog,
  });
  if (options.cronFiring ?? true) cronService.start();
  const logger = options.logger ?? silentLogger;
  const graceMs = options.shutdownGraceMs ?? settings.shutdownGraceSeconds * 1000;
  const watch = new DefinitionsWatch({
    ctx: { db: database.db, schema },
    serving: revision,
    logger,
    intervalMs: options.definitionsCheckMs ?? 10_000,
  });
  const service: OpenTaskQueue = {
    config,
    getQueue: (name) => core.getQueue(name),
    queues: () => core.queues(),
    operate: (name, operator) => core.operate(name, operator),
    overview: (names) => core.overview(names),
    runCleanup: () => core.runCleanup(),
    ping: () => core.ping(),
    close: async () => {
      watch.stop();
      await cronService.stop();
      await stopDispatch(graceMs);
      await core.close();
    },
    startDispatch,
    stopDispatch,
    cronJobs: () => cronService.list(),
    runCronJob: (name, operator) => cronService.run(name, operator),
    definitionsStatus: () => watch.status(),
    project,
    engine: database.engine,
    schema,
    authStore: authStore satisfies AuthStore,
    auditLog,
    depthHistory: new PgDepthHistory({ db: database.db, schema }),
    schemaStatus: async () => ({ current: await store.schemaVersion(), latest: await latestMigration() }),
    poolStats: () => {
      const pool = database.pool;
      return pool
        ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 }
        : null;
    },
  };
  return { service, store, database };
}

/** How long deleted names stay held: the service's and the SQL API's one period. */
function tombstoneRetentionMs(options: OpenTaskQueueOptions, settings: ServiceSettings): number {
  return (options.tombstoneDays ?? settings.tombstoneDays) * 24 * 3600 * 1000;
}

function databaseOptionsFor(options: OpenTaskQueueOptions, settings: ServiceSettings): DatabaseOptions {
  const url = options.databaseUrl === undefined ? settings.databaseUrl : options.databaseUrl;
  if (url) return postgresOptions(url, settings, options);
  const dataDir = options.dataDir ?? settings.dataDir;
  return dataDir === ':memory:' ? { kind: 'pglite' } : { kind: 'pglite', dataDir: resolve(dataDir) };
}

/** The PostgreSQL engine's options: the settings, with what the caller gave put over them. */
function postgresOptions(
  url: string,
  settings: ServiceSettings,
  options: Pick<OpenTaskQueueOptions, 'poolSize' | 'preparedStatements' | 'listenDatabaseUrl'> = {},
): Extract<DatabaseOptions, { kind: 'postgres' }> {
  const listenUrl = options.listenDatabaseUrl === undefined ? settings.listenDatabaseUrl : options.listenDatabaseUrl;
  return {
    kind: 'postgres',
    url,
    poolSize: options.poolSize ?? settings.poolSize,
    preparedStatements: options.preparedStatements ?? settings.preparedStatements,
    planCache: settings.planCache,
    ...(listenUrl ? { listenUrl } : {}),
  };
}
