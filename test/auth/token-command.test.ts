import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH_SETTINGS } from '../../src/auth/auth-settings.js';
import { DEFAULT_LOCAL_ISSUER, LocalIssuer } from '../../src/auth/local-issuer.js';
import { createLocalTokenApp, LOCAL_SECRET_HEADER } from '../../src/auth/local-token-app.js';
import { readTokenEndpointFile, TOKEN_ENDPOINT_FILE } from '../../src/auth/local-token-endpoint-file.js';
import { startLocalTokenServer } from '../../src/auth/local-token-server.js';
import { DEFAULT_SCOPE_ALIASES, TASKQUEUE_CONSUMER_SCOPE } from '../../src/auth/scopes.js';
import {
  issueTokenCommand,
  parseTokenCommandArgs,
  runTokenCommand,
  type TokenCommandDeps,
} from '../../src/cli/commands/token.js';
import { acquireDataDirLock } from '../../src/store/engine/data-dir-lock.js';
import { openDatabase, type OpenDatabase } from '../../src/store/engine/database.js';
import { PgAuthStore } from '../../src/store/pg-auth-store.js';
import { droppedAfterAll, testPgUrl } from '../helpers/engines.js';

/** Schemas this file makes, dropped when it ends. */
const freshSchema = droppedAfterAll();

/**
 * `taskqueue token`: straight to PostgreSQL, straight to a free embedded
 * data directory, and through a running server's loopback endpoint while
 * that server holds the embedded data directory.
 */

const EMAIL = 'newcomer@example.com';
let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'taskqueue-token-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

function deps(overrides: Partial<TokenCommandDeps> = {}): TokenCommandDeps {
  return { databaseUrl: null, dataDir, schema: 'taskqueue', auth: DEFAULT_AUTH_SETTINGS, ...overrides };
}

function issuerOn(database: OpenDatabase, schema = 'taskqueue'): LocalIssuer {
  return new LocalIssuer(DEFAULT_LOCAL_ISSUER, new PgAuthStore({ db: database.db, schema }), {
    scopeAliases: DEFAULT_SCOPE_ALIASES,
  });
}

describe('parseTokenCommandArgs', () => {
  it('reads --email, repeated or comma-separated --scope, and --ttl', () => {
    expect(parseTokenCommandArgs(['--email', EMAIL])).toEqual({ email: EMAIL });
    expect(
      parseTokenCommandArgs([
        '--email',
        EMAIL,
        '--scope',
        'taskqueue,taskqueue.consumer',
        '--scope',
        'x',
        '--ttl',
        '60',
      ]),
    ).toEqual({
      email: EMAIL,
      scopes: ['taskqueue', 'taskqueue.consumer', 'x'],
      ttlSeconds: 60,
    });
  });

  it.each([
    [[]],
    [['--email']],
    [['--email', EMAIL, '--ttl', '1h']],
    [['--email', EMAIL, '--bogus']],
    [['--email', EMAIL, 'extra']],
  ])('refuses %j', (argv) => {
    expect(() => parseTokenCommandArgs(argv)).toThrow();
  });
});

describe('issueTokenCommand', () => {
  it('mints directly on PostgreSQL, with the key every server of that database uses', async () => {
    const schema = freshSchema();
    const token = await issueTokenCommand(
      { email: EMAIL, scopes: ['taskqueue.consumer'], ttlSeconds: 120 },
      deps({ databaseUrl: testPgUrl(), schema }),
    );
    const server = await openDatabase({ kind: 'postgres', url: testPgUrl(), poolSize: 1 });
    try {
      await expect(issuerOn(server, schema).verify(token)).resolves.toMatchObject({
        email: EMAIL,
        scopes: [TASKQUEUE_CONSUMER_SCOPE],
      });
      const claims = decodeJwt(token);
      expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(120);
    } finally {
      await server.db.schema.dropSchema(schema).cascade().execute();
      await server.close();
    }
  });

  // One story, so the embedded engine is created once (PGlite's first open of a directory is slow):
  // the CLI mints straight into the free directory, a server takes it over, then the CLI asks that server.
  it(
    'mints in a free embedded data directory, then through the server that holds it',
    { timeout: 120_000 },
    async () => {
      const early = await issueTokenCommand({ email: EMAIL }, deps());

      // The CLI let go of the directory: a server can take it, and accepts the token.
      const server = await openDatabase({ kind: 'pglite', dataDir });
      const issuer = issuerOn(server);
      const endpoint = await startLocalTokenServer({ dataDir, minter: issuer });
      try {
        await expect(issuer.verify(early)).resolves.toMatchObject({ email: EMAIL });
        const info = readTokenEndpointFile(dataDir);
        expect(info).toMatchObject({ pid: process.pid, url: endpoint.url });
        expect(statSync(join(dataDir, TOKEN_ENDPOINT_FILE)).mode & 0o777).toBe(0o600);
        expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/token$/);

        const token = await issueTokenCommand({ email: EMAIL, scopes: ['taskqueue.consumer'] }, deps());
        await expect(issuer.verify(token)).resolves.toMatchObject({ email: EMAIL, scopes: [TASKQUEUE_CONSUMER_SCOPE] });

        // Mint errors come back as errors, not tokens.
        await expect(issueTokenCommand({ email: 'nobody' }, deps())).rejects.toMatchObject({ code: 'INVALID_REQUEST' });

        // Without the secret the endpoint mints nothing.
        const refused = await fetch(endpoint.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [LOCAL_SECRET_HEADER]: 'guess' },
          body: JSON.stringify({ email: EMAIL }),
        });
        expect(refused.status).toBe(401);
        expect(await refused.text()).not.toContain('eyJ');
      } finally {
        await endpoint.close();
        await server.close();
      }
      expect(readTokenEndpointFile(dataDir)).toBeNull();
    },
  );

  it('waits, then gives up, when a live process holds the directory without an endpoint', async () => {
    const lock = await acquireDataDirLock(dataDir);
    try {
      const started = Date.now();
      await expect(issueTokenCommand({ email: EMAIL }, deps({ waitMs: 300 }))).rejects.toThrow(
        /offers no local token endpoint/,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    } finally {
      await lock.release();
    }
  });

  it('ignores an endpoint file left by another process than the lock holder', async () => {
    const lock = await acquireDataDirLock(dataDir);
    try {
      writeFileSync(
        join(dataDir, TOKEN_ENDPOINT_FILE),
        JSON.stringify({ pid: 999_999_999, url: 'http://127.0.0.1:9/token', secret: 'x' }),
      );
      await expect(issueTokenCommand({ email: EMAIL }, deps({ waitMs: 200 }))).rejects.toThrow(
        /offers no local token endpoint/,
      );
    } finally {
      await lock.release();
    }
  });

  it('runs from argv and the environment, flags overriding variables', async () => {
    const schema = freshSchema();
    const token = await runTokenCommand(
      ['--email', EMAIL, '--scope', 'taskqueue.consumer', '--database-url', testPgUrl(), '--schema', schema],
      { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', TASKQUEUE_TOKEN_TTL_SECONDS: '300' },
    );
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ email: EMAIL, scope: TASKQUEUE_CONSUMER_SCOPE });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(300);
    const server = await openDatabase({ kind: 'postgres', url: testPgUrl(), poolSize: 1 });
    try {
      await expect(issuerOn(server, schema).verify(token)).resolves.toMatchObject({ email: EMAIL });
    } finally {
      await server.db.schema.dropSchema(schema).cascade().execute();
      await server.close();
    }
  });

  it('refuses when auth or the local issuer is off, or the engine runs in memory', async () => {
    await expect(
      issueTokenCommand({ email: EMAIL }, deps({ auth: { ...DEFAULT_AUTH_SETTINGS, enabled: false } })),
    ).rejects.toThrow(/TASKQUEUE_AUTH=off/);
    await expect(
      issueTokenCommand({ email: EMAIL }, deps({ auth: { ...DEFAULT_AUTH_SETTINGS, localIssuer: null } })),
    ).rejects.toThrow(/switched off/);
    await expect(issueTokenCommand({ email: EMAIL }, deps({ dataDir: ':memory:' }))).rejects.toThrow(/in memory/);
  });
});

describe('local token app', () => {
  it('refuses requests whose peer is not known to be loopback', async () => {
    const app = createLocalTokenApp({
      minter: { mint: async () => ({ accessToken: 'never', tokenType: 'Bearer', expiresIn: 1, scope: '' }) },
      secret: 's',
    });
    const response = await app.request('/token', {
      method: 'POST',
      headers: { [LOCAL_SECRET_HEADER]: 's', 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL }),
    });
    expect(response.status).toBe(403);
    expect(await response.text()).not.toContain('never');
  });
});
