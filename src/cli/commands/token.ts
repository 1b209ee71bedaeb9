import type { Command } from 'commander';
import { parseArgs } from 'node:util';
import { readTokenEndpointFile } from '../../auth/local-token-endpoint-file.js';
import type { MintRequest } from '../../auth/local-issuer.js';
import type { AuthSettings } from '../../auth/auth-settings.js';
import { readCappedText, type FetchFunction } from '../../auth/capped-fetch.js';
import { settingsFromEnvironment, type Environment } from '../../config/service-settings.js';
import { isQueueError, QueueError } from '../../core/errors.js';
import type { DatabaseOptions } from '../../store/engine/database.js';
import { probeDataDirLock } from '../../store/engine/data-dir-lock.js';
import { resolveDatabaseOptions } from '../../store/engine/resolve-database-options.js';
import { validateSchemaName } from '../../store/migrate/schema-name.js';
import type { CommandContext } from '../command-context.js';
import { withDatabaseOptions, type DatabaseFlags } from '../connection-options.js';
import { UsageError } from '../usage-error.js';

/** `taskqueue token --email E [--scope S]... [--ttl SECONDS]`, parsed. */
export interface TokenCommandArgs {
  readonly email: string;
  /** Scope URLs or aliases (`taskqueue`, `taskqueue.consumer`); default the full scope. */
  readonly scopes?: readonly string[];
  readonly ttlSeconds?: number;
}

/** Where the database is, and the auth settings (the caller reads them from env and flags). */
export interface TokenCommandDeps {
  /** PostgreSQL URL, or null for the embedded engine. */
  readonly databaseUrl: string | null;
  /** Named prepared statements (false behind a pooler in transaction mode; default true). */
  readonly preparedStatements?: boolean;
  /** The embedded engine's data directory (`:memory:` cannot be reached from another process). */
  readonly dataDir: string;
  readonly schema: string;
  readonly auth: AuthSettings;
  /** fetch for asking a running server (default: the global fetch). */
  readonly fetch?: FetchFunction;
  /** How long to wait for a busy data directory to become usable (default 10 s). */
  readonly waitMs?: number;
}

export const TOKEN_USAGE = `Usage: taskqueue token --email E [--scope S]... [--ttl SECONDS]
                       [--database-url URL] [--data-dir DIR] [--schema NAME]

Prints an access token of the local issuer for E, accepted by every server
sharing this database. --scope: taskqueue (default) or taskqueue.consumer, or
their URLs; --ttl: lifetime in seconds (default 3600).
Then: curl -H "Authorization: Bearer $(taskqueue token --email E)" ...
`;

/** The flags of `taskqueue token`: its own, and where the database is (as `serve` takes them). */
const TOKEN_FLAGS = {
  email: { type: 'string' },
  scope: { type: 'string', multiple: true },
  ttl: { type: 'string' },
  'database-url': { type: 'string' },
  'data-dir': { type: 'string' },
  schema: { type: 'string' },
} as const;

function parseFlags(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: TOKEN_FLAGS, strict: true, allowPositionals: false }).values;
}

/**
 * `taskqueue token ...` as the CLI runs it: --database-url, --data-dir and
 * --schema override DATABASE_URL, TASKQUEUE_DATA_DIR and TASKQUEUE_SCHEMA;
 * the auth settings come from the environment. Resolves to the token, for
 * the caller to print.
 */
export async function runTokenCommand(
  argv: readonly string[],
  env: Environment,
  fetchImpl?: FetchFunction,
): Promise<string> {
  const values = parseFlags(argv);
  const merged: Record<string, string | undefined> = { ...env };
  if (values['database-url'] !== undefined) merged.DATABASE_URL = values['database-url'];
  if (values['data-dir'] !== undefined) merged.TASKQUEUE_DATA_DIR = values['data-dir'];
  if (values.schema !== undefined) merged.TASKQUEUE_SCHEMA = values.schema;
  const settings = settingsFromEnvironment(merged);
  // Loaded when minting: the auth settings bring jose (the local issuer's defaults).
  const { authSettingsFromEnvironment } = await import('../../auth/auth-settings.js');
  return issueTokenCommand(parseTokenCommandArgs(argv), {
    databaseUrl: settings.databaseUrl,
    preparedStatements: settings.preparedStatements,
    dataDir: settings.dataDir,
    schema: settings.schema,
    auth: authSettingsFromEnvironment(merged),
    ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
  });
}

/**
 * The token-specific flags, read strictly: unknown flags and stray words are
 * errors (the database flags are accepted and left to runTokenCommand).
 */
export function parseTokenCommandArgs(argv: readonly string[]): TokenCommandArgs {
  const values = parseFlags(argv);
  if (values.email === undefined) throw new QueueError('INVALID_REQUEST', `--email is required\n\n${TOKEN_USAGE}`);
  const scopes = values.scope?.flatMap((s) => s.split(/[\s,]+/)).filter((s) => s !== '');
  let ttlSeconds: number | undefined;
  if (values.ttl !== undefined) {
    if (!/^\d+$/.test(values.ttl))
      throw new QueueError('INVALID_REQUEST', `--ttl must be a whole number of seconds, got "${values.ttl}"`);
    ttlSeconds = Number(values.ttl);
  }
  return {
    email: values.email,
    ...(scopes === undefined ? {} : { scopes }),
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
  };
}

/**
 * Mints a local access token and returns it (the caller prints it).
 *
 * - PostgreSQL: opens the database, applies migrations, mints with the key
 *   in it, closes. Works whether or not servers are running.
 * - Embedded engine, data directory free: the same, on the directory.
 * - Embedded engine, data directory held by a live server: PGlite admits
 *   one process at a time, so the CLI asks that server instead, through
 *   its loopback token endpoint (URL and secret in the 0600 endpoint file
 *   beside the lock). If the holder offers no endpoint yet (it is still
 *   starting, or it is another short-lived CLI), the CLI waits for the
 *   endpoint or the lock for up to `waitMs`.
 */
export async function issueTokenCommand(args: TokenCommandArgs, deps: TokenCommandDeps): Promise<string> {
  const settings = deps.auth.localIssuer;
  if (!deps.auth.enabled) {
    throw new QueueError('INVALID_CONFIG', 'authentication is off (TASKQUEUE_AUTH=off): requests need no token');
  }
  if (settings === null) {
    throw new QueueError(
      'INVALID_CONFIG',
      'the local token issuer is switched off (TASKQUEUE_LOCAL_ISSUER=off); get a token from your identity provider',
    );
  }
  const request: MintRequest = {
    email: args.email,
    ...(args.scopes === undefined ? {} : { scopes: args.scopes }),
    ...(args.ttlSeconds === undefined ? {} : { ttlSeconds: args.ttlSeconds }),
  };
  const schema = validateSchemaName(deps.schema);
  const mintDirectly = async (options: DatabaseOptions): Promise<string> => {
    // Loaded when minting here, not when the CLI starts: the drivers and jose are most of its start-up.
    const [{ openDatabase }, { migrate }, { PgAuthStore }, { LocalIssuer }] = await Promise.all([
      import('../../store/engine/database.js'),
      import('../../store/migrate/migrate.js'),
      import('../../store/pg-auth-store.js'),
      import('../../auth/local-issuer.js'),
    ]);
    const database = await openDatabase(options);
    try {
      await migrate(database.db, schema);
      const issuer = new LocalIssuer(settings, new PgAuthStore({ db: database.db, schema }), {
        scopeAliases: deps.auth.scopeAliases,
      });
      return (await issuer.mint(request)).accessToken;
    } finally {
      await database.close();
    }
  };
  const database = resolveDatabaseOptions({
    databaseUrl: deps.databaseUrl,
    dataDir: deps.dataDir,
    poolSize: 1,
    preparedStatements: deps.preparedStatements ?? true,
  });
  if (database.kind !== 'pglite') return mintDirectly(database);
  if (database.dataDir === undefined) {
    throw new QueueError(
      'INVALID_CONFIG',
      'the embedded engine runs in memory (TASKQUEUE_DATA_DIR=:memory:), so no other process can reach its keys; use a data directory',
    );
  }
  const dataDir = database.dataDir;
  const deadline = Date.now() + (deps.waitMs ?? 10_000);
  for (;;) {
    const holder = (await probeDataDirLock(dataDir))?.pid ?? null;
    if (holder !== null) {
      const endpoint = readTokenEndpointFile(dataDir);
      if (endpoint !== null && endpoint.pid === holder)
        return askServer(endpoint.url, endpoint.secret, request, deps.fetch ?? fetch);
    } else {
      try {
        return await mintDirectly(database);
      } catch (error) {
        // Another process took the directory between the check and the open: ask it instead.
        if (!isQueueError(error, 'INVALID_CONFIG') || (error.details as { pid?: unknown }).pid === undefined)
          throw error;
      }
    }
    if (Date.now() >= deadline) {
      throw new QueueError(
        'TRANSIENT_ERROR',
        `the data directory ${dataDir} is in use by process ${holder ?? '?'}, which offers no local token endpoint ` +
          '(is it a taskqueue server with TASKQUEUE_AUTH=on and TASKQUEUE_LOCAL_ISSUER=on?)',
      );
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** Asks a running server's local token endpoint to mint. */
export async function askServer(
  url: string,
  secret: string,
  request: MintRequest,
  fetchImpl: FetchFunction,
): Promise<string> {
  // The endpoint's module brings hono: loaded when asking, not when the CLI starts.
  const { LOCAL_SECRET_HEADER } = await import('../../auth/local-token-app.js');
  let status: number;
  let body: { access_token?: unknown; error_description?: unknown };
  try {
    const response = await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [LOCAL_SECRET_HEADER]: secret },
      body: JSON.stringify(request),
      redirect: 'error',
      signal: AbortSignal.timeout(10_000),
    });
    status = response.status;
    body = JSON.parse(await readCappedText(response, 64 * 1024)) as typeof body;
  } catch (error) {
    throw new QueueError(
      'TRANSIENT_ERROR',
      `the running server did not answer the token request: ${String(error)}`,
      {},
      { cause: error },
    );
  }
  if (status === 200 && typeof body.access_token === 'string') return body.access_token;
  const why = typeof body.error_description === 'string' ? body.error_description : `status ${status}`;
  throw new QueueError(
    status === 400 ? 'INVALID_REQUEST' : 'TRANSIENT_ERROR',
    `the running server refused the token request: ${why}`,
  );
}

/** Registers `taskqueue token`: commander reads the flags, parseTokenCommandArgs checks them as before. */
export function registerToken(program: Command, ctx: CommandContext): void {
  withDatabaseOptions(
    program
      .command('token')
      .summary('print an access token of the local issuer')
      .description(TOKEN_USAGE.slice(TOKEN_USAGE.indexOf('\n\n') + 2).trimEnd())
      .requiredOption('--email <address>', 'whose token (an administrator, for the operator commands over --url)')
      .option(
        '--scope <scope>',
        'taskqueue (default) or taskqueue.consumer, or their URLs; repeatable',
        (value: string, list: string[] = []) => [...list, value],
      )
      .option('--ttl <seconds>', 'lifetime in seconds (default 3600)'),
  ).action(async (flags: DatabaseFlags & { email: string; scope?: string[]; ttl?: string }) => {
    const argv = [
      ['--email', flags.email],
      ...(flags.scope ?? []).map((scope) => ['--scope', scope]),
      flags.ttl === undefined ? [] : ['--ttl', flags.ttl],
      flags.databaseUrl === undefined ? [] : ['--database-url', flags.databaseUrl],
      flags.dataDir === undefined ? [] : ['--data-dir', flags.dataDir],
      flags.schema === undefined ? [] : ['--schema', flags.schema],
    ].flat();
    try {
      parseTokenCommandArgs(argv);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    ctx.io.out.write(`${await runTokenCommand(argv, ctx.io.env)}\n`);
  });
}
