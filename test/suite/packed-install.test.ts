import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freshSchema, testPgUrl } from '../helpers/engines.js';

/**
 * How README's "Depending on taskqueue" says to depend on the package: a
 * tarball of `npm pack` (of a built tree) installed into a project of its
 * own, which then imports `taskqueue` and `taskqueue/client`, type-checks
 * against them, adds and leases a task, and runs the `taskqueue` bin.
 * Offline: the consumer's lock file lists this package's runtime
 * dependencies as our package-lock.json resolved them, so `npm ci --offline`
 * takes them from the npm cache that installing this checkout filled.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
// Upper bounds, not expectations: the build (only when dist/ is older than
// src/) takes 20-60 s on a busy 2-core machine, the install 5-15 s.
const BUILD_MS = 240_000;
const STEP_MS = 120_000;

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  [key: string]: unknown;
}

interface PackageJson {
  version: string;
  license: string;
  dependencies: Record<string, string>;
  bin: Record<string, string>;
  engines: Record<string, string>;
}

describe('the packed package, installed in a fresh project', () => {
  const schema = freshSchema();
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: testPgUrl() });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });

  it(
    'imports taskqueue and taskqueue/client, type-checks, adds and leases, and runs its bin',
    { timeout: BUILD_MS + 5 * STEP_MS },
    async () => {
      dir = await mkdtemp(join(tmpdir(), 'taskqueue-packed-'));
      const app = join(dir, 'app');
      await mkdir(app);
      await run(process.execPath, [join(ROOT, 'scripts/build-if-stale.mjs')], { cwd: ROOT, timeout: BUILD_MS });
      const { stdout: packed } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
        cwd: ROOT,
        timeout: STEP_MS,
      });
      const [{ filename, integrity }] = JSON.parse(packed) as [{ filename: string; integrity: string }];

      const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
      const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, LockEntry>;
      };
      const spec = `file:../${filename}`;
      const packages: Record<string, unknown> = {
        '': { name: 'consumer', dependencies: { taskqueue: spec } },
        'node_modules/taskqueue': {
          version: pkg.version,
          resolved: spec,
          integrity,
          license: pkg.license,
          dependencies: pkg.dependencies,
          bin: pkg.bin,
          engines: pkg.engines,
        },
      };
      for (const [path, entry] of Object.entries(lock.packages)) {
        if (path === '' || entry.dev) continue;
        const { devOptional: _devOptional, ...rest } = entry;
        packages[path] = rest;
      }
      await writeFile(
        join(app, 'package.json'),
        JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { taskqueue: spec } }),
      );
      await writeFile(
        join(app, 'package-lock.json'),
        JSON.stringify({ name: 'consumer', lockfileVersion: 3, requires: true, packages }),
      );
      await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
        cwd: app,
        timeout: STEP_MS,
      });

      await writeFile(join(app, 'queue.yaml'), 'queue:\n- name: jobs\n  mode: pull\n');
      const consumer = `import { openTaskQueue, QueueError } from 'taskqueue';
import { TaskQueueClient } from 'taskqueue/client';

const client: TaskQueueClient = new TaskQueueClient({ baseUrl: 'http://127.0.0.1:1' });
const tq = await openTaskQueue({ databaseUrl: process.argv[2], schema: process.argv[3], config: './queue.yaml', cleanupIntervalMs: 0 });
const queue = tq.getQueue('jobs');
await queue.add({ name: 'packed', payload: 'from the tarball' });
const [task] = await queue.leaseTasks({ lease: 60, maxTasks: 1 });
await tq.close();
console.log(JSON.stringify({ task: task?.name, payload: task?.payload.toString(), client: typeof client.queue, error: typeof QueueError }));
`;
      await writeFile(join(app, 'consumer.ts'), consumer);
      await writeFile(join(app, 'consumer.mjs'), consumer.replace(': TaskQueueClient', ''));
      // The package's types, as a strict consumer on Node's module resolution sees them.
      await run(
        process.execPath,
        [
          join(ROOT, 'node_modules/typescript/bin/tsc'),
          '--noEmit',
          '--strict',
          '--module',
          'nodenext',
          '--target',
          'es2022',
          '--skipLibCheck',
          '--types',
          'node',
          '--typeRoots',
          join(ROOT, 'node_modules/@types'),
          'consumer.ts',
        ],
        { cwd: app, timeout: STEP_MS },
      );
      const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir };
      const { stdout } = await run(process.execPath, ['consumer.mjs', testPgUrl(), schema], {
        cwd: app,
        env,
        timeout: STEP_MS,
      });
      expect(JSON.parse(stdout.trim().split('\n').pop() ?? '')).toEqual({
        task: 'packed',
        payload: 'from the tarball',
        client: 'function',
        error: 'function',
      });

      // The bin npm linked, as `npx taskqueue` in the project runs it.
      const version = await run(join(app, 'node_modules/.bin/taskqueue'), ['--version'], {
        cwd: app,
        env,
        timeout: STEP_MS,
      });
      expect(version.stdout.trim()).toBe(pkg.version);
      const check = await run(join(app, 'node_modules/.bin/taskqueue'), ['check-config', 'queue.yaml'], {
        cwd: app,
        env,
        timeout: STEP_MS,
      });
      expect(check.stdout).toContain('jobs');
    },
  );
});
