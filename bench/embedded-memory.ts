/**
 * Resident memory of a server on the embedded engine (PGlite): starts
 * `taskqueue serve` (dist/main.js, or src/main.ts through tsx with --src) on
 * a new data directory, and reports its RSS idle after start-up, under a
 * REST load (adds of 1 KB, leases of 10, deletes; pull queue `pull-queue`
 * with an unlimited lease rate), idle again after it, and on a restart
 * over the now existing directory.
 *
 *   npm run bench:memory [-- --src] [-- --tasks N]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    src: { type: 'boolean', default: false },
    tasks: { type: 'string', default: '1000' },
    consumers: { type: 'string', default: '8' },
    'settle-ms': { type: 'string', default: '5000' },
    /** Extra node flags for the server (to compare V8 settings). */
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});
const TASKS = Number(values.tasks);
const CONSUMERS = Number(values.consumers);
const SETTLE_MS = Number(values['settle-ms']);
const root = join(import.meta.dirname, '..');

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
  readonly pid: number;
}

async function startServer(dataDir: string): Promise<{ server: Server; startMs: number }> {
  const started = performance.now();
  const args = values.src
    ? ['--import', import.meta.resolve('tsx'), join(root, 'src/main.ts')]
    : [join(root, 'dist/main.js')];
  const child = spawn(process.execPath, [...(values['node-arg'] ?? []), ...args], {
    cwd: dataDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      TASKQUEUE_DATA_DIR: join(dataDir, 'data'),
      DATABASE_URL: '',
      TASKQUEUE_AUTH: 'off',
      TASKQUEUE_CONFIG: join(dataDir, 'queue.xml'),
    },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    const read = (chunk: Buffer) => {
      // Only the start-up line is kept: the log (JSON lines on stdout) names its url.
      if (text.length < 100_000) text += chunk.toString('utf8');
      const match = /"url":"(http:\/\/[^"]+)"/.exec(text);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', () => reject(new Error(`server exited: ${text}`)));
  });
  return { server: { child, url, pid: child.pid! }, startMs: performance.now() - started };
}

async function stopServer(server: Server): Promise<void> {
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
}

/** Resident and peak resident memory of a process, in MB. */
function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${url}/taskqueue/v1beta2/projects/local/taskqueues/pull-queue${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text === '' ? null : JSON.parse(text);
}

/** Adds TASKS tasks of 1 KB, then CONSUMERS loops lease 10 and delete each until the queue is empty. */
async function load(url: string): Promise<{ adds: number; deletes: number; ms: number }> {
  const started = performance.now();
  const payloadBase64 = Buffer.alloc(1024, 'x').toString('base64');
  let next = 0;
  await Promise.all(
    Array.from({ length: CONSUMERS }, async () => {
      while (next < TASKS) {
        next++;
        await call(url, 'POST', '/tasks', { queueName: 'pull-queue', payloadBase64 });
      }
    }),
  );
  let deletes = 0;
  await Promise.all(
    Array.from({ length: CONSUMERS }, async () => {
      for (;;) {
        const leased = (await call(url, 'POST', '/tasks/lease?leaseSecs=60&numTasks=10')) as {
          items?: Array<{ id: string }>;
        };
        const items = leased.items ?? [];
        if (items.length === 0) return;
        for (const task of items) {
          await call(url, 'DELETE', `/tasks/${task.id}`);
          deletes++;
        }
      }
    }),
  );
  return { adds: TASKS, deletes, ms: performance.now() - started };
}

const dir = mkdtempSync(join(tmpdir(), 'tq-memory-'));
// The built-in pull queue's default lease rate (10/s) would make the load a test of patience.
writeFileSync(
  join(dir, 'queue.xml'),
  '<queue-entries><queue><name>pull-queue</name><mode>pull</mode><lease-rate>unlimited</lease-rate></queue></queue-entries>\n',
);
try {
  const first = await startServer(dir);
  await sleep(SETTLE_MS);
  const idle = memory(first.server.pid);

  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, memory(first.server.pid).rss)), 100);
  const result = await load(first.server.url);
  clearInterval(sampler);
  const loaded = memory(first.server.pid);
  await sleep(SETTLE_MS);
  const after = memory(first.server.pid);
  await stopServer(first.server);

  const second = await startServer(dir);
  await sleep(SETTLE_MS);
  const restarted = memory(second.server.pid);
  await stopServer(second.server);

  const mb = (value: number) => `${value.toFixed(0)} MB`;
  console.log(`embedded engine server (${values.src ? 'src via tsx' : 'dist'}), node ${process.version}`);
  console.log(
    `  new data directory: started in ${(first.startMs / 1000).toFixed(1)} s, idle RSS ${mb(idle.rss)} (peak so far ${mb(idle.hwm)})`,
  );
  console.log(
    `  load: ${result.adds} adds + ${result.deletes} lease/deletes (${CONSUMERS} clients) in ${(result.ms / 1000).toFixed(1)} s: ` +
      `RSS peak ${mb(Math.max(peak, loaded.rss))}, process peak ${mb(loaded.hwm)}`,
  );
  console.log(`  idle after the load: RSS ${mb(after.rss)}`);
  console.log(
    `  restart on the existing directory: started in ${(second.startMs / 1000).toFixed(1)} s, idle RSS ${mb(restarted.rss)} (peak ${mb(restarted.hwm)})`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
