/**
 * `npx tsx bench/ops-figures.ts`: the two operations figures docs/operations.md
 * quotes, on the real PostgreSQL (DATABASE_URL, default the local test
 * database):
 *
 * 1. Scrape cost of GET /metrics with QUEUES queues holding TASKS tasks:
 *    the queue-gauge query alone, a scrape that runs it (cold), a scrape
 *    served from the one-second cache (warm), and a storm of concurrent
 *    scrapes (how long, and how many queries it cost).
 * 2. Shutdown under load: a server process with CLIENTS keep-alive clients
 *    adding and leasing as fast as they can gets SIGTERM; how long until it
 *    has exited, and how many requests it answered after the signal.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import pg from 'pg';
import { DEFAULT_SETTINGS } from '../src/config/service-settings.js';
import { startServer } from '../src/server.js';

const URL_ = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const QUEUES = Number(process.env.QUEUES ?? 11);
const TASKS = Number(process.env.TASKS ?? 20_000);
const CLIENTS = Number(process.env.CLIENTS ?? 32);
const ROOT = fileURLToPath(new URL('../', import.meta.url));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function configFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tq-bench-ops-'));
  const queues = Array.from(
    { length: QUEUES },
    (_, i) => `- name: q${i}\n  mode: pull\n  lease_rate: unlimited\n`,
  ).join('');
  writeFileSync(join(dir, 'queue.yaml'), `queue:\n${queues}`);
  return join(dir, 'queue.yaml');
}

async function scrapeCost(): Promise<void> {
  const schema = `bench_ops_${process.pid}`;
  const running = await startServer({
    settings: {
      ...DEFAULT_SETTINGS,
      databaseUrl: URL_,
      schema,
      host: '127.0.0.1',
      port: 0,
      configPath: configFile(),
      console: false,
    },
    env: { TASKQUEUE_AUTH: 'off' },
  });
  const admin = new pg.Client({ connectionString: URL_ });
  await admin.connect();
  try {
    const perQueue = Math.ceil(TASKS / QUEUES);
    for (let q = 0; q < QUEUES; q++) {
      const queue = running.service.getQueue(`q${q}`);
      for (let n = 0; n < perQueue; n += 100) {
        await queue.add(Array.from({ length: Math.min(100, perQueue - n) }, () => ({ payload: 'x' })));
      }
      // A share of each queue leased, another delayed, so every state is counted.
      await queue.leaseTasks({ lease: 600, unit: 'seconds', maxTasks: 500 });
    }
    await admin.query(
      `update ${schema}.tasks set eta = now() + interval '1 hour' where ctid in (select ctid from ${schema}.tasks where retry_count = 0 limit ${Math.floor(TASKS / 10)})`,
    );
    await admin.query(`analyze ${schema}.tasks`);

    const overview = running.service.overview.bind(running.service);
    let queries = 0;
    running.service.overview = () => {
      queries++;
      return overview();
    };
    const timed = async (run: () => Promise<unknown>) => {
      const start = performance.now();
      await run();
      return performance.now() - start;
    };
    const scrape = async () => {
      const r = await fetch(`${running.url}/metrics`);
      await r.text();
    };
    const queryMs: number[] = [];
    for (let i = 0; i < 7; i++) queryMs.push(await timed(() => overview()));
    const cold: number[] = [];
    for (let i = 0; i < 5; i++) {
      await sleep(1100);
      cold.push(await timed(scrape));
    }
    const warm: number[] = [];
    for (let i = 0; i < 20; i++) warm.push(await timed(scrape));
    await sleep(1100);
    queries = 0;
    const storm = await timed(() => Promise.all(Array.from({ length: 100 }, scrape)));
    const body = await (await fetch(`${running.url}/metrics`)).text();
    console.log(`scrape cost, ${QUEUES} queues, ${TASKS} tasks (medians):`);
    console.log(`  queue-gauge query alone: ${median(queryMs).toFixed(1)} ms`);
    console.log(`  scrape running the query (cold): ${median(cold).toFixed(1)} ms`);
    console.log(`  scrape from the 1 s cache (warm): ${median(warm).toFixed(1)} ms`);
    console.log(
      `  100 concurrent scrapes: ${storm.toFixed(0)} ms in all, ${queries} queue-gauge quer${queries === 1 ? 'y' : 'ies'}`,
    );
    console.log(
      `  exposition size: ${(body.length / 1024).toFixed(1)} KiB, ${body.split('\n').filter((l) => l && !l.startsWith('#')).length} samples`,
    );
  } finally {
    await running.shutdown(1000);
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}

function call(url: string, method: string, agent: Agent, body?: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers.connection));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function shutdownUnderLoad(): Promise<void> {
  const dir = `${ROOT}.test-build/bench-${process.pid}`;
  const bundle = `${dir}/main.mjs`;
  buildSync({
    entryPoints: [`${ROOT}src/main.ts`],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: bundle,
    logLevel: 'error',
  });
  const schema = `bench_shutdown_${process.pid}`;
  const times: number[] = [];
  const after: number[] = [];
  try {
    for (let run = 0; run < 3; run++) {
      const proc = spawn(process.execPath, [bundle], {
        env: {
          PATH: process.env.PATH ?? '',
          DATABASE_URL: URL_,
          TASKQUEUE_SCHEMA: schema,
          TASKQUEUE_CONFIG: configFile(),
          HOST: '127.0.0.1',
          PORT: '0',
          TASKQUEUE_AUTH: 'off',
          TASKQUEUE_CONSOLE: 'off',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      // The log stays at its default level (a line per request), as in production.
      let pending = '';
      const url = await new Promise<string>((resolve, reject) => {
        proc.stdout!.on('data', (chunk: Buffer) => {
          pending += chunk.toString();
          const match = /"url":"(http:\/\/[^"]+)"/.exec(pending);
          if (match) resolve(match[1]!);
          if (pending.length > 1_000_000) pending = '';
        });
        proc.once('exit', () => reject(new Error('the server exited before it started')));
      });
      const exited = new Promise<number>((resolve) => proc.once('exit', () => resolve(Date.now())));
      let signalled = 0;
      let total = 0;
      let afterSignal = 0;
      const loops = Array.from({ length: CLIENTS }, async () => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
          for (let n = 0; ; n++) {
            if (n % 2 === 0)
              await call(
                `${url}/taskqueue/v1beta2/projects/local/taskqueues/q0/tasks`,
                'POST',
                agent,
                '{"payloadBase64":"eA=="}',
              );
            else
              await call(
                `${url}/taskqueue/v1beta2/projects/local/taskqueues/q0/tasks/lease?numTasks=1&leaseSecs=60`,
                'POST',
                agent,
              );
            total++;
            if (signalled) afterSignal++;
          }
        } catch {
          // the server is gone
        } finally {
          agent.destroy();
        }
      });
      await sleep(3000);
      signalled = Date.now();
      proc.kill('SIGTERM');
      const exitAt = await exited;
      await Promise.all(loops);
      times.push(exitAt - signalled);
      after.push(afterSignal);
      console.log(
        `  run ${run + 1}: ${total - afterSignal} requests in 3 s from ${CLIENTS} keep-alive clients; SIGTERM -> exit ${exitAt - signalled} ms; ${afterSignal} answered after the signal`,
      );
    }
    console.log(
      `shutdown under load (${CLIENTS} keep-alive clients): median ${median(times)} ms to exit, median ${median(after)} requests answered after SIGTERM`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: URL_ });
    await admin.connect();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}

await scrapeCost();
await shutdownUnderLoad();
