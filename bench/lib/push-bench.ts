/**
 * Push delivery in `npm run bench`: throughput to a loopback sink that
 * answers at once (another process), beside a plain loop doing the same
 * work (claim one task with SKIP LOCKED, fetch, delete); latency from add
 * to delivery on an idle queue; rate accuracy at 50/s and 500/s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import {
  DEFAULT_PUSH_SETTINGS,
  DEFAULT_RETRY_PARAMETERS,
  defaultQueueConfig,
  type QueueConfig,
  type ServiceConfig,
} from '../../src/core/queue-config.js';
import { openTaskQueue, type OpenTaskQueue } from '../../src/open-task-queue.js';
import { figure, formatFigure, type Figure } from './stats.js';
import { printTable } from './table.js';

const SINK_SOURCE = `
const http = require('node:http');
let count = 0;
const server = http.createServer((req, res) => { req.resume(); req.on('end', () => { count++; res.writeHead(200); res.end(); }); });
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => { if (m === 'count') process.send({ count }); if (m === 'exit') process.exit(0); });
`;

/** A loopback sink in a process of its own, so its CPU is not the dispatcher's. */
async function startRemoteSink(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', SINK_SOURCE], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  return { url: `http://127.0.0.1:${port}`, child };
}

function pushQueue(
  name: string,
  targetUrl: string,
  ratePerSecond: number,
  bucketSize: number,
  maxConcurrentRequests: number | null,
): QueueConfig {
  return {
    name,
    mode: 'push',
    maxLeases: null,
    storageLimitBytes: null,
    leaseRate: null,
    retry: DEFAULT_RETRY_PARAMETERS,
    acl: { userEmails: [], writerEmails: [] },
    push: { ...DEFAULT_PUSH_SETTINGS, ratePerSecond, bucketSize, maxConcurrentRequests, targetUrl },
  };
}

function config(queue: QueueConfig): ServiceConfig {
  return { source: 'bench', totalStorageLimitBytes: null, adminEmails: [], queues: [defaultQueueConfig(), queue] };
}

async function open(url: string, schema: string, cfg: ServiceConfig, dispatch: boolean): Promise<OpenTaskQueue> {
  return openTaskQueue({
    databaseUrl: url,
    schema,
    config: cfg,
    dispatch,
    pushSigning: false,
    cleanupIntervalMs: 0,
    poolSize: 10,
    env: {},
  });
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`drop schema if exists ${schema} cascade`);
  await client.end();
}

async function preload(service: OpenTaskQueue, queue: string, count: number): Promise<void> {
  const q = service.getQueue(queue);
  const tasks = Array.from({ length: 100 }, () => ({ payload: 'x' }));
  for (let i = 0; i < count; i += 100) await q.add(tasks.slice(0, Math.min(100, count - i)));
}

async function remaining(url: string, schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query(`select count(*) as n from ${schema}.tasks`)).rows[0].n);
  } finally {
    await client.end();
  }
}

/** Deliveries per second of the dispatcher: `count` tasks preloaded, then one dispatching service drains them. */
async function dispatcherThroughput(url: string, sink: string, count: number): Promise<number> {
  const schema = `bench_push_${process.pid}_${Date.now()}`;
  const cfg = config(pushQueue('push', sink, 1_000_000, 1_000_000, 64));
  const loader = await open(url, schema, cfg, false);
  await preload(loader, 'push', count);
  await loader.close();
  const started = performance.now();
  const service = await open(url, schema, cfg, true);
  while ((await remaining(url, schema)) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const seconds = (performance.now() - started) / 1000;
  await service.close();
  await dropSchema(url, schema);
  return count / seconds;
}

/** The same work as a plain loop: 64 workers each claim one task (SKIP LOCKED), fetch it, delete it. */
async function plainLoopThroughput(url: string, sink: string, count: number): Promise<number> {
  const schema = `bench_plain_${process.pid}_${Date.now()}`;
  const cfg = config(pushQueue('push', sink, 1_000_000, 1_000_000, 64));
  const loader = await open(url, schema, cfg, false);
  await preload(loader, 'push', count);
  const queueId = loader.getQueue('push').id;
  await loader.close();
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const started = performance.now();
  const worker = async () => {
    for (;;) {
      const claimed = await pool.query(
        `update ${schema}.tasks t set eta = now() + interval '10 minutes', retry_count = t.retry_count + 1
           from (select name from ${schema}.tasks where queue_id = $1 and eta <= now() order by eta limit 1 for update skip locked) p
          where t.queue_id = $1 and t.name = p.name returning t.name, t.payload`,
        [queueId],
      );
      const row = claimed.rows[0] as { name: string; payload: Buffer } | undefined;
      if (!row) return;
      const response = await fetch(`${sink}/_ah/queue/push`, { method: 'POST', body: row.payload });
      await response.arrayBuffer();
      if (response.ok)
        await pool.query(`delete from ${schema}.tasks where queue_id = $1 and name = $2`, [queueId, row.name]);
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.end();
  await dropSchema(url, schema);
  return count / seconds;
}

/** Add-to-delivery latency on an idle queue, ms: one add at a time, the sink in this process timing arrivals. */
async function latency(url: string, samples: number): Promise<{ p50: number; p99: number }> {
  let arrived: (() => void) | null = null;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200);
      res.end();
      arrived?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sink = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const schema = `bench_lat_${process.pid}_${Date.now()}`;
  const service = await open(url, schema, config(pushQueue('push', sink, 1_000_000, 1_000_000, null)), true);
  const q = service.getQueue('push');
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const delivered = new Promise<void>((resolve) => (arrived = resolve));
    const started = performance.now();
    await q.add({ payload: 'x' });
    await delivered;
    times.push(performance.now() - started);
  }
  await service.close();
  server.close();
  await dropSchema(url, schema);
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length * 0.5)]!, p99: times[Math.floor(times.length * 0.99)]! };
}

/** Deliveries per second of a queue at `rate` over `seconds`, after its first bucket: the measured rate. */
async function rateAccuracy(
  url: string,
  sink: { url: string; child: ChildProcess },
  rate: number,
  seconds: number,
): Promise<number> {
  const schema = `bench_rate_${process.pid}_${Date.now()}`;
  const bucket = Math.max(5, Math.round(rate / 10));
  const cfg = config(pushQueue('push', sink.url, rate, bucket, null));
  const loader = await open(url, schema, cfg, false);
  await preload(loader, 'push', Math.ceil(rate * (seconds + 3) + bucket));
  await loader.close();
  const count = () =>
    new Promise<number>((resolve) => {
      sink.child.once('message', (m: { count: number }) => resolve(m.count));
      sink.child.send('count');
    });
  const service = await open(url, schema, cfg, true);
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the first bucket and a second of steady rate
  const before = await count();
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const delivered = (await count()) - before;
  const measured = delivered / ((performance.now() - started) / 1000);
  await service.close();
  await dropSchema(url, schema);
  return measured;
}

export async function pushSection(url: string, runs: number, quick: boolean): Promise<Record<string, unknown>> {
  const count = quick ? 5_000 : 20_000;
  const sink = await startRemoteSink();
  try {
    const ours: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < runs; i++) {
      ours.push(await dispatcherThroughput(url, sink.url, count));
      plain.push(await plainLoopThroughput(url, sink.url, count));
    }
    const oursFigure: Figure = figure(ours);
    const plainFigure: Figure = figure(plain);
    printTable(
      `push delivery: ${count.toLocaleString('en-US')} tasks, no rate limit, 64 concurrent, sink answering at once (deliveries/s)`,
      ['', 'deliveries/s', 'vs plain loop'],
      [
        ['taskqueue dispatcher', formatFigure(oursFigure), `${(oursFigure.median / plainFigure.median).toFixed(2)}x`],
        ['plain loop (SKIP LOCKED claim, fetch, delete)', formatFigure(plainFigure), ''],
      ],
    );
    const lat = await latency(url, quick ? 100 : 300);
    printTable(
      'push latency, add to delivery, idle queue (ms)',
      ['', 'p50', 'p99'],
      [['taskqueue', lat.p50.toFixed(1), lat.p99.toFixed(1)]],
    );
    const seconds = quick ? 5 : 20;
    const at50 = await rateAccuracy(url, sink, 50, seconds);
    const at500 = await rateAccuracy(url, sink, 500, seconds);
    printTable(
      `push rate accuracy over ${seconds} s (deliveries/s)`,
      ['rate', 'measured', 'error'],
      [
        ['50/s', at50.toFixed(1), `${(((at50 - 50) / 50) * 100).toFixed(1)}%`],
        ['500/s', at500.toFixed(1), `${(((at500 - 500) / 500) * 100).toFixed(1)}%`],
      ],
    );
    return {
      throughput: { taskqueue: oursFigure, plainLoop: plainFigure },
      latencyMs: lat,
      rate: { 50: at50, 500: at500 },
    };
  } finally {
    sink.child.send('exit');
  }
}
