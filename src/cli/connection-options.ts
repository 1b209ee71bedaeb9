import type { Command } from 'commander';
import { settingsFromEnvironment, type Environment, type ServiceSettings } from '../config/service-settings.js';
import type { DatabaseOptions } from '../store/engine/database.js';
import { resolveDatabaseOptions } from '../store/engine/resolve-database-options.js';

/** Where a command's database is: flags that override DATABASE_URL, TASKQUEUE_DATA_DIR, TASKQUEUE_SCHEMA. */
export interface DatabaseFlags {
  readonly databaseUrl?: string;
  readonly dataDir?: string;
  readonly schema?: string;
}

/** The flags of `serve`, each overriding its environment variable. */
export interface ServerFlags extends DatabaseFlags {
  readonly config?: string;
  readonly project?: string;
  readonly port?: string;
  readonly host?: string;
}

/** An operator command's target: a running server (--url), else the database. */
export interface ConnectionFlags extends DatabaseFlags {
  /** The queue configuration: on the database, written to a fresh one, else checked against its queues (not with --url). */
  readonly config?: string;
  readonly url?: string;
  readonly token?: string;
}

export function withDatabaseOptions(command: Command): Command {
  return command
    .option('--database-url <url>', 'PostgreSQL URL (default $DATABASE_URL; without one, the embedded engine)')
    .option('--data-dir <dir>', 'embedded engine directory (default $TASKQUEUE_DATA_DIR, else ./data)')
    .option('--schema <name>', 'schema of the tables (default $TASKQUEUE_SCHEMA, else taskqueue)');
}

export function withConnectionOptions(command: Command): Command {
  return withDatabaseOptions(
    command
      .option('--url <url>', 'talk to a running server instead of the database (default $TASKQUEUE_URL)')
      .option('--token <token>', 'bearer token for --url (default $TASKQUEUE_TOKEN)')
      .option(
        '--config <file>',
        "queue.xml or queue.yaml: written to a fresh database first; else it must agree with the database's queues (default $TASKQUEUE_CONFIG)",
      ),
  );
}

/** Settings from the environment, with the flags given on the command line put over them. */
export function settingsFromFlags(env: Environment, flags: ServerFlags | ConnectionFlags): ServiceSettings {
  const overrides: Record<string, string | undefined> = {
    DATABASE_URL: flags.databaseUrl,
    TASKQUEUE_DATA_DIR: flags.dataDir,
    TASKQUEUE_SCHEMA: flags.schema,
    TASKQUEUE_CONFIG: flags.config,
    TASKQUEUE_PROJECT: 'project' in flags ? flags.project : undefined,
    PORT: 'port' in flags ? flags.port : undefined,
    HOST: 'host' in flags ? flags.host : undefined,
  };
  return settingsFromEnvironment(mergedEnvironment(env, overrides));
}

/** The environment with the given variables replaced (those left undefined stay as they are). */
export function mergedEnvironment(env: Environment, overrides: Record<string, string | undefined>): Environment {
  const merged: Record<string, string | undefined> = { ...env };
  for (const [key, value] of Object.entries(overrides)) if (value !== undefined) merged[key] = value;
  return merged;
}

/**
 * A command's database, by the one rule (resolveDatabaseOptions): a small
 * pool of `poolSize`, and the pooler settings (TASKQUEUE_PREPARED_STATEMENTS,
 * TASKQUEUE_LISTEN_DATABASE_URL).
 */
export function commandDatabaseOptions(settings: ServiceSettings, poolSize: number): DatabaseOptions {
  return resolveDatabaseOptions({ ...settings, poolSize });
}
