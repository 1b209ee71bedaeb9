import { isQueueError, QueueError } from '../core/errors.js';
import type { Environment, ServiceSettings } from '../config/service-settings.js';
import { commandDatabaseOptions, settingsFromFlags, type ConnectionFlags } from './connection-options.js';
import type { OperatorClient } from './operator-client.js';

/**
 * The client an operator command works through: a running server when
 * --url (or TASKQUEUE_URL) is given, else the database of DATABASE_URL, else
 * the embedded engine's data directory. The embedded engine admits one
 * process, so while a server holds the directory the command must go
 * through that server: the error says how.
 */
export async function openClient(flags: ConnectionFlags, env: Environment): Promise<OperatorClient> {
  const url = flags.url ?? nonEmpty(env.TASKQUEUE_URL);
  // Each client is loaded when a command opens it, not when the CLI starts:
  // the database one brings the drivers and the whole core (most of a
  // command's start-up), the HTTP one the REST client.
  if (url !== undefined) {
    if (!/^https?:\/\//i.test(url))
      throw new QueueError('INVALID_CONFIG', `--url must be an http:// or https:// URL, got "${url}"`);
    const { HttpClient } = await import('./http-client.js');
    return new HttpClient(url, flags.token ?? nonEmpty(env.TASKQUEUE_TOKEN));
  }
  const { DatabaseClient } = await import('./database-client.js');
  const settings = settingsFromFlags(env, flags);
  const database = commandDatabaseOptions(settings, 2);
  if (database.kind !== 'pglite') return DatabaseClient.open(database, operatorOptions(settings, env), cliActor(env));
  if (database.dataDir === undefined) {
    throw new QueueError(
      'INVALID_CONFIG',
      'TASKQUEUE_DATA_DIR=:memory: cannot be reached from another process; give --url or DATABASE_URL',
    );
  }
  const dataDir = database.dataDir;
  try {
    return await DatabaseClient.open(database, operatorOptions(settings, env), cliActor(env));
  } catch (error) {
    const pid = isQueueError(error, 'INVALID_CONFIG') ? error.details.pid : undefined;
    if (pid === undefined) throw error;
    const viaServer = await throughHoldingServer(dataDir, pid, env);
    if (viaServer) return viaServer;
    // The holding server's own address when it wrote one (its PORT may be any), else the default.
    const { readTokenEndpointFile } = await import('../auth/local-token-endpoint-file.js');
    const serverUrl = readTokenEndpointFile(dataDir)?.serverUrl ?? 'http://127.0.0.1:8080';
    throw new QueueError(
      'INVALID_CONFIG',
      `the embedded database in ${dataDir} is in use by process ${String(pid)}, and it admits one process at a time; ` +
        `ask that server instead: --url ${serverUrl} --token "$(taskqueue token --email ADMIN)" ` +
        "(ADMIN: one of the server's TASKQUEUE_ADMINS; or set TASKQUEUE_ADMINS here as the server has it, and the CLI asks the server itself)",
      { pid },
    );
  }
}

/**
 * The embedded engine admits one process, so while a server holds the data
 * directory the commands go through that server, as `taskqueue token` does:
 * its endpoint file (0600, beside the lock: reading it is the privilege of
 * reading the database files) gives its REST URL and the secret of its
 * local token endpoint, which mints a token for the first administrator of
 * TASKQUEUE_ADMINS. Null when any of that is missing (the caller explains).
 */
async function throughHoldingServer(dataDir: string, pid: unknown, env: Environment): Promise<OperatorClient | null> {
  const [{ readTokenEndpointFile }, { authSettingsFromEnvironment }, { askServer }, { HttpClient }] = await Promise.all(
    [
      import('../auth/local-token-endpoint-file.js'),
      import('../auth/auth-settings.js'),
      import('./commands/token.js'),
      import('./http-client.js'),
    ],
  );
  const endpoint = readTokenEndpointFile(dataDir);
  const admin = authSettingsFromEnvironment(env).admins[0];
  if (endpoint?.serverUrl === undefined || endpoint.pid !== pid || admin === undefined) return null;
  const token = await askServer(endpoint.url, endpoint.secret, { email: admin }, fetch);
  return new HttpClient(endpoint.serverUrl, token);
}

/** The schema, and the configuration when one is given (--config, TASKQUEUE_CONFIG): written to a fresh database, else checked against its queues. */
function operatorOptions(
  settings: ServiceSettings,
  env: Environment,
): { schema: string; config?: string; env: Environment } {
  return { schema: settings.schema, env, ...(settings.configPath === null ? {} : { config: settings.configPath }) };
}

/** The audit log's actor for operator actions taken on the database: `cli:` and the login name ($USER), or `cli`. */
function cliActor(env: Environment): string {
  const user = nonEmpty(env.USER) ?? nonEmpty(env.LOGNAME);
  return user === undefined ? 'cli' : `cli:${user}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** Opens the client, runs `work` with it, and closes it whatever happens. */
export async function withClient<T>(
  flags: ConnectionFlags,
  env: Environment,
  work: (client: OperatorClient) => Promise<T>,
): Promise<T> {
  const client = await openClient(flags, env);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
