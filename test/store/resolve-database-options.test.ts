import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateCommand } from '../../src/cli/commands/migrate.js';
import { commandDatabaseOptions, settingsFromFlags } from '../../src/cli/connection-options.js';
import { openClient } from '../../src/cli/open-client.js';
import { openTaskQueue } from '../../src/open-task-queue.js';
import { resolveDatabaseOptions } from '../../src/store/engine/resolve-database-options.js';
import { droppedAfterAll, testPgUrl } from '../helpers/engines.js';

/**
 * "A URL means PostgreSQL, else PGlite in the data directory, or in memory
 * for `:memory:`" is written once, and the service and the CLI both go by it.
 */
describe('one resolver of where the database is', () => {
  const dir = mkdtempSync(join(tmpdir(), 'resolve-database-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const schema = droppedAfterAll();

  it('a URL is PostgreSQL with the pool and pooler settings; else a data directory, resolved; :memory: is in memory', () => {
    expect(
      resolveDatabaseOptions({
        databaseUrl: 'postgres://db/app',
        dataDir: './data',
        poolSize: 3,
        preparedStatements: false,
        planCache: 'auto',
        listenDatabaseUrl: 'postgres://direct/app',
      }),
    ).toEqual({
      kind: 'postgres',
      url: 'postgres://db/app',
      poolSize: 3,
      preparedStatements: false,
      planCache: 'auto',
      listenUrl: 'postgres://direct/app',
    });
    expect(resolveDatabaseOptions({ databaseUrl: 'postgres://db/app', dataDir: './data' })).toEqual({
      kind: 'postgres',
      url: 'postgres://db/app',
    });
    // An empty URL (DATABASE_URL= in a file) is none.
    expect(resolveDatabaseOptions({ databaseUrl: '', dataDir: 'rel/dir' })).toEqual({
      kind: 'pglite',
      dataDir: resolve('rel/dir'),
    });
    // No data directory: PGlite keeps the database in memory.
    expect(resolveDatabaseOptions({ databaseUrl: null, dataDir: ':memory:' })).toEqual({ kind: 'pglite' });
  });

  it('the CLI: flags over the environment, a command-sized pool, and :memory: too', () => {
    const env = { DATABASE_URL: 'postgres://env/app', TASKQUEUE_PREPARED_STATEMENTS: 'off' };
    expect(commandDatabaseOptions(settingsFromFlags(env, {}), 2)).toMatchObject({
      kind: 'postgres',
      url: 'postgres://env/app',
      poolSize: 2,
      preparedStatements: false,
    });
    expect(commandDatabaseOptions(settingsFromFlags({}, { dataDir: 'here' }), 1)).toEqual({
      kind: 'pglite',
      dataDir: resolve('here'),
    });
    expect(commandDatabaseOptions(settingsFromFlags({}, { dataDir: ':memory:' }), 1)).toEqual({ kind: 'pglite' });
  });

  it('`taskqueue migrate` with :memory: migrates an in-memory database (before, it made a directory named ":memory:")', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    expect(await migrateCommand(settingsFromFlags({}, { dataDir: ':memory:' }), out)).toBe(0);
    expect(text).toMatch(/^schema taskqueue: applied /);
    expect(existsSync(':memory:')).toBe(false);
  });

  it('an operator command on :memory: is refused with the reason (no other process can reach it)', async () => {
    await expect(openClient({ dataDir: ':memory:' }, {})).rejects.toThrow(/cannot be reached from another process/);
  });

  const open = { cleanupIntervalMs: 0, dispatch: false, cronFiring: false } as const;

  it('openTaskQueue on a URL: PostgreSQL', async () => {
    const service = await openTaskQueue({ ...open, databaseUrl: testPgUrl(), schema: schema() }, {});
    expect(service.engine).toBe('postgres');
    await service.close();
  });

  it('openTaskQueue on a data directory: PGlite there', async () => {
    const dataDir = join(dir, 'data');
    const service = await openTaskQueue({ ...open, databaseUrl: null, dataDir }, {});
    expect(service.engine).toBe('pglite');
    await service.close();
    expect(readdirSync(join(dataDir, 'pgdata'))).toContain('PG_VERSION');
  });

  it('openTaskQueue on :memory:: PGlite in memory; its audit log is read, not written, by the application', async () => {
    const service = await openTaskQueue({ ...open, databaseUrl: null, dataDir: ':memory:' }, {});
    expect(service.engine).toBe('pglite');
    // Only the core's actions write it.
    expect(Object.keys(service.auditLog)).toEqual(['list']);
    await service.operate(service.queues()[0]!.name, { actor: 'ops@example.com', source: 'api' }).pause();
    expect((await service.auditLog.list({ limit: 10 })).map((entry) => [entry.action, entry.actor])).toEqual([
      ['pause', 'ops@example.com'],
    ]);
    await service.close();
  });
});
