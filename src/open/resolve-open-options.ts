import { settingsFromEnvironment, type Environment, type ServiceSettings } from '../config/service-settings.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { DatabaseOptions } from '../store/engine/database.js';
import { resolveDatabaseOptions } from '../store/engine/resolve-database-options.js';
import { validateSchemaName } from '../store/migrate/schema-name.js';
import type { WiringOptions } from './open-task-queue-options.js';

/** `openTaskQueue`'s options with the environment's defaults put under them, once for every opener. */
export interface ResolvedOpenOptions {
  readonly options: WiringOptions;
  readonly env: Environment;
  readonly settings: ServiceSettings;
  readonly schema: string;
  readonly logger: Logger;
  readonly project: string;
  /** Where the database is: the caller's, else by the one rule (resolveDatabaseOptions). */
  readonly database: DatabaseOptions;
  /** Whether closing the service closes the database (not a `pglite-instance` the caller gave). */
  readonly ownsDatabase: boolean;
  readonly pushBaseUrl: string | null;
  readonly targetUrls: ReadonlyMap<string, string>;
  /** How long deleted names stay held: the service's and the SQL API's one period. */
  readonly tombstoneRetentionMs: number;
  readonly deadLetterRetentionMs: number;
  /** How long `close()` lets push requests in flight finish. */
  readonly shutdownGraceMs: number;
}

const DAY_MS = 24 * 3600 * 1000;

/** Resolves `options` over the environment (`options.env`, else `defaultEnv`): what each field falls back to. */
export function resolveOpenOptions(options: WiringOptions, defaultEnv?: Environment): ResolvedOpenOptions {
  const env = options.env ?? defaultEnv ?? {};
  const settings = settingsFromEnvironment(env);
  const database =
    options.database ??
    resolveDatabaseOptions({
      databaseUrl: options.databaseUrl === undefined ? settings.databaseUrl : options.databaseUrl,
      dataDir: options.dataDir ?? settings.dataDir,
      poolSize: options.poolSize ?? settings.poolSize,
      preparedStatements: options.preparedStatements ?? settings.preparedStatements,
      planCache: settings.planCache,
      listenDatabaseUrl:
        options.listenDatabaseUrl === undefined ? settings.listenDatabaseUrl : options.listenDatabaseUrl,
    });
  return {
    options,
    env,
    settings,
    schema: validateSchemaName(options.schema ?? settings.schema),
    logger: options.logger ?? silentLogger,
    project: options.project ?? settings.project,
    database,
    ownsDatabase: database.kind !== 'pglite-instance',
    pushBaseUrl: options.pushBaseUrl === undefined ? settings.pushBaseUrl : options.pushBaseUrl,
    targetUrls: options.targetUrls ?? settings.targetUrls,
    tombstoneRetentionMs: (options.tombstoneDays ?? settings.tombstoneDays) * DAY_MS,
    deadLetterRetentionMs: (options.deadLetterDays ?? settings.deadLetterDays) * DAY_MS,
    shutdownGraceMs: options.shutdownGraceMs ?? settings.shutdownGraceSeconds * 1000,
  };
}
