import { requireCronQueues, withCronQueue } from './config/cron-queue.js';
import { DEFAULT_CONFIG_FILES, resolveConfig, resolveCron } from './config/resolve-config.js';
import type { Environment } from './config/service-settings.js';
import { QueueError } from './core/errors.js';
import { logQueues } from './core/log-queues.js';
import { withPushBaseUrl } from './core/queue-config.js';
import type { DefinitionsRole } from './core/queue-definitions.js';
import { apiQueueResolver, withStoredApiQueues } from './open/api-queue-wiring.js';
import { hostTaskQueue } from './open/host-task-queue.js';
import type { OpenTaskQueue } from './open/hosted-task-queue.js';
import type { OpenTaskQueueOptions, WiringOptions } from './open/open-task-queue-options.js';
import { resolveOpenOptions, type ResolvedOpenOptions } from './open/resolve-open-options.js';
import { configuredQueues } from './store/definitions/configured-queues.js';
import { openDatabase, type DatabaseOptions, type OpenDatabase } from './store/engine/database.js';
import { migrate } from './store/migrate/migrate.js';
import { PgTaskStore } from './store/pg-task-store.js';
import { settleQueueDefinitions } from './store/definitions/settle-queue-definitions.js';
import { prepareSqlApi } from './store/sql-api/sql-api-settings.js';
import { waitForDatabase } from './store/engine/wait-for-database.js';

export type { PoolStats } from './core/pool-stats.js';
export type { DefinitionsStatus } from './store/definitions/definitions-watch.js';
export type { OpenTaskQueue, OpenTaskQueueOptions, WiringOptions };
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
  const resolved = resolveOpenOptions(options, defaultEnv);
  const { settings, logger, schema, pushBaseUrl, targetUrls } = resolved;
  const cron = await resolveCron(options.cron === undefined ? settings.cronPath : options.cron);
  const given = withPushBaseUrl(
    withCronQueue(await resolveConfig(options.config ?? settings.configPath, settings), cron),
    pushBaseUrl,
    targetUrls,
  );
  const role: DefinitionsRole = given.source === 'built-in' ? 'use' : options.ownQueues === true ? 'own' : 'check';
  logger.info({ source: given.source, queues: given.queues.length, role }, 'config loaded');
  if (cron !== null) logger.info({ source: cron.source, jobs: cron.jobs.length }, 'cron jobs loaded');

  if (resolved.database.kind === 'postgres' && (options.databaseWaitSeconds ?? 0) > 0) {
    await waitForDatabase(resolved.database.url, { waitSeconds: options.databaseWaitSeconds ?? 0, logger });
  }
  const { database, store } = await openStore(resolved);
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
    const config = settled.wrote ? given : withPushBaseUrl(settled.config, pushBaseUrl, targetUrls);
    requireCronQueues(config, cron);
    logQueues(logger, config, {
      role,
      wrote: settled.wrote,
      revision: settled.revision,
      superseded: settled.superseded,
      routes: targetUrls,
      cronJobs: cron?.jobs ?? [],
    });
    await prepareSqlApi(database.db, schema, { tombstoneRetentionMs: resolved.tombstoneRetentionMs, logger });
    const withApi = await withStoredApiQueues(
      { db: database.db, schema },
      config,
      settled.ids,
      apiQueueResolver(pushBaseUrl, targetUrls),
    );
    const served = { database, store, config: withApi.config, queueIds: withApi.ids, revision: settled.revision, cron };
    return { service: hostTaskQueue(served, resolved), store, database };
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
  // An operator's command delivers no push tasks and fires no cron jobs: the servers do.
  const serving = { ...options, env, dispatch: false, cronFiring: false };
  const resolved = resolveOpenOptions({ ...serving, cleanupIntervalMs: 0, definitionsCheckMs: 0 });
  if ((options.config ?? resolved.settings.configPath) !== null)
    return openTaskQueue({ cleanupIntervalMs: 0, ...serving });
  const { schema, pushBaseUrl, targetUrls } = resolved;
  const { database, store } = await openStore(resolved);
  try {
    const where = database.engine === 'pglite' ? 'the embedded database' : 'the database';
    if (!(await store.schemaExists())) {
      throw new QueueError(
        'INVALID_CONFIG',
        `schema "${schema}" of ${where} holds no taskqueue tables; start the server once, or give the configuration ` +
          '(TASKQUEUE_CONFIG=queue.xml) and the command writes its queues as a server would; or check --schema / TASKQUEUE_SCHEMA',
      );
    }
    // Every time, not only when behind: the fast path is one read, and it is what refuses an edited
    // migration, re-applies a changed routine and takes over a development build's history.
    await migrate(database.db, schema);
    const { config: stored, ids, revision } = await configuredQueues({ db: database.db, schema });
    const source = `${stored.source.replace('the database', where)} (no configuration given: TASKQUEUE_CONFIG=queue.xml or taskqueue config sync writes one)`;
    const fileConfig = withPushBaseUrl({ ...stored, source }, pushBaseUrl, targetUrls);
    const { config, ids: queueIds } = await withStoredApiQueues(
      { db: database.db, schema },
      fileConfig,
      ids,
      apiQueueResolver(pushBaseUrl, targetUrls),
    );
    const served = { database, store, config, queueIds, revision: revision?.revision ?? null, cron: null };
    return hostTaskQueue(served, resolved);
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
}

/** Opens the resolved database and the task store over it (which closes it, when the service owns it). */
async function openStore(resolved: ResolvedOpenOptions): Promise<{ database: OpenDatabase; store: PgTaskStore }> {
  const database = await openDatabase(resolved.database);
  const { schema, ownsDatabase, logger } = resolved;
  return { database, store: new PgTaskStore(database, schema, { ownsDatabase, logger }) };
}
