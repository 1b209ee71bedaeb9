import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The rule of imports is an allow-list in eslint.config.js: these lint
 * probe files, as if they sat in src/<part>, with the project's own
 * configuration, through ESLint's Node API.
 */
const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function importErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'layers/allowed-imports').map((m) => m.message);
}

describe('the import allow-list', () => {
  it.each([
    ['src/core/probe.ts', 'jose', "import { jwtVerify } from 'jose';\nexport const v = jwtVerify;"],
    ['src/core/probe.ts', 'node:http', "import { createServer } from 'node:http';\nexport const s = createServer;"],
    ['src/core/probe.ts', 'kysely', "import type { Kysely } from 'kysely';\nexport type K = Kysely<object>;"],
    ['src/core/probe.ts', 'pg', "export const load = () => import('pg');"],
    ['src/core/probe.ts', 'store', "export * from '../store/database.js';"],
    ['src/core/probe.ts', 'fs', "import { readFileSync } from 'fs';\nexport const r = readFileSync;"],
    ['src/auth/probe.ts', 'http', "import { createApp } from '../http/create-app.js';\nexport const a = createApp;"],
    [
      'src/auth/probe.ts',
      'store',
      "import { PgAuthStore } from '../store/pg-auth-store.js';\nexport const s = PgAuthStore;",
    ],
    [
      'src/auth/probe.ts',
      'config',
      "import { loadConfigFile } from '../config/load-config.js';\nexport const l = loadConfigFile;",
    ],
    [
      'src/store/probe.ts',
      'auth',
      "import type { AuthStore } from '../auth/auth-store.js';\nexport type A = AuthStore;",
    ],
    ['src/config/probe.ts', 'store', "import { migrate } from '../store/migrate.js';\nexport const m = migrate;"],
    [
      'src/http/probe.ts',
      'open-task-queue.ts',
      "import type { OpenTaskQueue } from '../open-task-queue.js';\nexport type S = OpenTaskQueue;",
    ],
    [
      'src/http/routes/probe.ts',
      'store',
      "import { migrate } from '../../store/migrate.js';\nexport const m = migrate;",
    ],
    ['src/http/probe.ts', 'kysely', "import { Kysely } from 'kysely';\nexport const k = Kysely;"],
    ['src/index.ts', 'store', "export { PgTaskStore } from './store/pg-task-store.js';"],
  ])('%s may not import %s', async (filePath, target, code) => {
    const errors = await importErrors(filePath, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`may not import ${target} `);
  });

  it('fails a part of src/ that has no entry, top-level files included', async () => {
    expect(await importErrors('src/probe.ts', 'export const x = 1;')).toEqual([
      expect.stringContaining('src/probe.ts has no entry in the import allow-list'),
    ]);
    expect(await importErrors('src/plugins/probe.ts', 'export const x = 1;')).toEqual([
      expect.stringContaining('src/plugins has no entry'),
    ]);
  });

  it('passes what the architecture allows', async () => {
    expect(
      await importErrors(
        'src/core/probe.ts',
        "import { QueueError } from './errors.js';\nimport { randomBytes } from 'node:crypto';\nexport const e = [QueueError, randomBytes];",
      ),
    ).toEqual([]);
    expect(
      await importErrors(
        'src/http/routes/probe.ts',
        "import { QueueError } from '../../core/errors.js';\nimport type { AccessControl } from '../../auth/access-control.js';\nimport { Hono } from 'hono';\nexport type A = AccessControl;\nexport const e = [QueueError, Hono];",
      ),
    ).toEqual([]);
    expect(
      await importErrors(
        'src/store/probe.ts',
        "import { sql } from 'kysely';\nimport type { TaskStore } from '../core/task-store.js';\nexport type T = TaskStore;\nexport const s = sql;",
      ),
    ).toEqual([]);
    expect(
      await importErrors(
        'src/cli/commands/probe.ts',
        "import { startServer } from '../../server.js';\nexport const s = startServer;",
      ),
    ).toEqual([]);
  });
});
