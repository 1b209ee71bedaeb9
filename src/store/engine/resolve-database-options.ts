import { resolve } from 'node:path';
import type { DatabaseOptions } from './database.js';

type PostgresOptions = Extract<DatabaseOptions, { kind: 'postgres' }>;

/** Where the database is, as the settings (environment and flags, or `openTaskQueue`'s options) say. */
export interface DatabaseSettings {
  /** PostgreSQL connection string; null or empty = the embedded engine. */
  readonly databaseUrl: string | null;
  /** The embedded engine's data directory; `':memory:'` keeps it in memory. */
  readonly dataDir: string;
  readonly poolSize?: number;
  readonly preparedStatements?: boolean;
  readonly planCache?: PostgresOptions['planCache'];
  /** A direct URL for LISTEN when `databaseUrl` goes through a pooler. */
  readonly listenDatabaseUrl?: string | null;
}

/**
 * The one rule of where the database is, for the service and the CLI alike:
 * a URL means PostgreSQL; else PGlite in the data directory (resolved
 * against the working directory), or in memory for `':memory:'`.
 */
export function resolveDatabaseOptions(settings: DatabaseSettings): DatabaseOptions {
  if (settings.databaseUrl) {
    const listenUrl = settings.listenDatabaseUrl;
    return {
      kind: 'postgres',
      url: settings.databaseUrl,
      ...(settings.poolSize === undefined ? {} : { poolSize: settings.poolSize }),
      ...(settings.preparedStatements === undefined ? {} : { preparedStatements: settings.preparedStatements }),
      ...(settings.planCache === undefined ? {} : { planCache: settings.planCache }),
      ...(listenUrl ? { listenUrl } : {}),
    };
  }
  return settings.dataDir === ':memory:' ? { kind: 'pglite' } : { kind: 'pglite', dataDir: resolve(settings.dataDir) };
}
