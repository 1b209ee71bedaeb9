import { existsSync } from 'node:fs';
import type { PoolStats } from './core/pool-stats.js';
import { resolve } from 'node:path';
import type { AuthStore } from './auth/auth-store.js';
import { loadConfigFile, builtInConfig } from './config/load-config.js';
import { settingsFromEnvironment, type Environment, type ServiceSettings } from './config/service-settings.js';
import type { AuditLog } from './core/audit-log.js';
import type { DepthHistory } from './core/depth-history.js';
import { silentLogger, type Logger } from './core/logger.js';
import type { ServiceConfig } from './core/queue-config.js';
import type { TaskEvents } from './core/task-events.js';
import { TaskQueueService } from './core/task-queue-service.js';
import { PgAuditLog } from './store/audit-log.js';
import { PgDepthHistory } from './store/depth-history.js';
import { openDatabase, type DatabaseOptions, type EngineKind } from './store/database.js';
import { latestMigration, migrate } from './store/migrate.js';
import { PgAuthStore } from './store/pg-auth-store.js';
import { PgTaskStore } from './store/pg-task-store.js';
import { validateSchemaName } from './store/schema-name.js';
import { waitForDatabase } from './store/wait-for-database.js';

/** Options of `openTaskQueue`; each defaults to the environment (DATABASE_URL, TASKQUEUE_*). */
export interface OpenTaskQueueOptions {
  /** PostgreSQL connection string; absent (and no DATABASE_URL) = embedded PGlite. */
  readonly databaseUrl?: string | null;
  /** Path to queue.xml or queue.yaml, or an already validated configuration (default: ./queue.xml, else ./queue.yaml, else a built-in sample). */
  readonly config?: string | ServiceConfig;
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
   * How long to wait for a PostgreSQL server that does not answer yet, in
   * seconds, retrying with back-off and a log line per attempt (default 0:
   * one attempt; the server passes TASKQUEUE_DB_WAIT_SECONDS).
   */
  readonly databaseWaitSeconds?: number;
  /** Environment to take defaults from (default: the process's). */
  readonly env?: Environment;
  /** Use this database instead of opening one (tests; the caller closes it). */
  readonly database?: DatabaseOptions;
}

/** The service `openTaskQueue` resolves to. */
export interface OpenTaskQueue extends TaskQueueService {
  /** The project id of the REST paths. */
  readonly project: string;
  /** Which engine runs the SQL. */
  readonly engine: EngineKind;
  /** The schema of the service's tables. */
  readonly schema: string;
  /** Where the local token issuer keeps its signing keys (the same database and schema). */
  readonly authStore: AuthStore;
  /** The operators' audit log (the same database and schema). */
  readonly auditLog: AuditLog;
  /** The console's samples of queue depth (the same database and schema). */
  readonly depthHistory: DepthHistory;
  /** The migrations applied to the schema now (`current`; TRANSIENT_ERROR when the schema is gone) and the latest this package ships. */
  schemaStatus(): Promise<{ readonly current: number; readonly latest: number }>;
  /** The PostgreSQL connection pool's figures now; null on the embedded engine. */
  poolStats(): PoolStats | null;
}

export type { PoolStats };

/**
 * Opens the task queue service in this process: loads and validates the
 * queue configuration, opens the database (PostgreSQL, or embedded PGlite),
 * applies migrations under an advisory lock, and writes the configured
 * queues to it.
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
export async function openTaskQueue(options: OpenTaskQueueOptions = {}, defaultEnv?: Environment): Promise<OpenTaskQueue> {
  const env = options.env ?? defaultEnv ?? {};
  const settings = settingsFromEnvironment(env);
  const schema = validateSchemaName(options.schema ?? settings.schema);
  const logger = options.logger ?? silentLogger;
  const config = await resolveConfig(options.config ?? settings.configPath, settings);
  logger.info({ source: config.source, queues: config.queues.length }, 'config loaded');
  if (config.source === 'built-in') {
    logger.warn(
      { queues: config.queues.map((q) => q.name) },
      'running on the built-in sample configuration: no queue.xml or queue.yaml here and TASKQUEUE_CONFIG not set',
    );
  }

  const databaseOptions: DatabaseOptions =
    options.database ?? databaseOptionsFor(options, settings);
  if (databaseOptions.kind === 'postgres' && (options.databaseWaitSeconds ?? 0) > 0) {
    await waitForDatabase(databaseOptions.url, { waitSeconds: options.databaseWaitSeconds ?? 0, logger });
  }
  const database = await openDatabase(databaseOptions);
  const ownsDatabase = options.database === undefined || options.database.kind !== 'pglite-instance';
  const store = new PgTaskStore(database, schema, { ownsDatabase, logger });
  try {
    const migrated = await migrate(database.db, schema);
    logger.info({ schema, applied: migrated.applied, version: migrated.current }, migrated.applied.length > 0 ? 'migrations applied' : 'migrations current');
    const ids = await store.syncQueues(config);
    const service = new TaskQueueService(store, config, ids, {
      tombstoneRetentionMs: (options.tombstoneDays ?? settings.tombstoneDays) * 24 * 3600 * 1000,
      deadLetterRetentionMs: (options.deadLetterDays ?? settings.deadLetterDays) * 24 * 3600 * 1000,
      ...(options.events === undefined ? {} : { events: options.events }),
      ...(options.cleanupIntervalMs === undefined ? {} : { cleanupIntervalMs: options.cleanupIntervalMs }),
      logger,
    });
    return Object.assign(service, {
      project: options.project ?? settings.project,
      engine: database.engine,
      schema,
      authStore: new PgAuthStore({ db: database.db, schema }) satisfies AuthStore,
      auditLog: new PgAuditLog({ db: database.db, schema }),
      depthHistory: new PgDepthHistory({ db: database.db, schema }),
      schemaStatus: async () => ({ current: await store.schemaVersion(), latest: await latestMigration() }),
      poolStats: () => {
        const pool = database.pool;
        return pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 } : null;
      },
    });
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
}

function databaseOptionsFor(options: OpenTaskQueueOptions, settings: ServiceSettings): DatabaseOptions {
  const url = options.databaseUrl === undefined ? settings.databaseUrl : options.databaseUrl;
  if (url) return postgresOptions(url, settings, options);
  const dataDir = options.dataDir ?? settings.dataDir;
  return dataDir === ':memory:' ? { kind: 'pglite' } : { kind: 'pglite', dataDir: resolve(dataDir) };
}

/** The files looked for in the working directory when no configuration is named, in this order. */
export const DEFAULT_CONFIG_FILES = ['queue.xml', 'queue.yaml', 'queue.yml'] as const;

/**
 * A config path or object; with neither, the first of DEFAULT_CONFIG_FILES
 * that exists, else the built-in sample. A named file that does not exist is
 * an error (loadConfigFile), never a silent fallback to the sample.
 */
async function resolveConfig(config: string | ServiceConfig | null, settings: ServiceSettings): Promise<ServiceConfig> {
  const options = { maxActiveQueues: settings.maxActiveQueues };
  if (config === null) {
    const found = DEFAULT_CONFIG_FILES.find((file) => existsSync(file));
    return found === undefined ? builtInConfig() : loadConfigFile(found, options);
  }
  if (typeof config === 'string') return loadConfigFile(config, options);
  return config;
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
    ...(listenUrl ? { listenUrl } : {}),
  };
}
