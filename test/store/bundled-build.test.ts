import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrate/migrations.js';
import { freshSchema, testPgUrl } from '../helpers/engines.js';

const ROOT = new URL('../..', import.meta.url).pathname;
// Inside node_modules, so the bundle finds its packages; two folders down
// from anywhere holding sql/, so a bundle that read sql/ beside itself
// (../../sql, as the unbundled dist/store does) would find nothing.
const OUT = join(ROOT, 'node_modules', '.cache', 'taskqueue-bundle-test', randomBytes(4).toString('hex'));

describe('a bundled build (esbuild)', () => {
  const schema = freshSchema();
  afterAll(async () => {
    await rm(OUT, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: testPgUrl() });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });

  it('migrates, adds and leases with the migrations inside the bundle', async () => {
    await mkdir(OUT, { recursive: true });
    await build({
      entryPoints: [join(ROOT, 'src/index.ts')],
      outfile: join(OUT, 'index.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'silent',
    });
    await writeFile(
      join(OUT, 'run.mjs'),
      `import { openTaskQueue } from './index.mjs';
const tq = await openTaskQueue({ databaseUrl: process.argv[2], schema: process.argv[3], cleanupIntervalMs: 0 });
const queue = tq.getQueue(tq.queues().find((q) => q.mode === 'pull').name);
await queue.add({ name: 'bundled', payload: 'from the bundle' });
const [task] = await queue.leaseTasks({ lease: 60, maxTasks: 1 });
await tq.close();
console.log(JSON.stringify({ task: task.name, payload: task.payload.toString() }));
`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [join(OUT, 'run.mjs'), testPgUrl(), schema], {
      cwd: OUT,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(JSON.parse(stdout.trim().split('\n').pop() ?? '')).toEqual({ task: 'bundled', payload: 'from the bundle' });

    const client = new pg.Client({ connectionString: testPgUrl() });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>(
        `select version from ${schema}.schema_migrations order by version`,
      );
      expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await client.end();
    }
  });
});
