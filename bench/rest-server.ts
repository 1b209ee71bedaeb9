/**
 * The REST benchmark's server: a process of its own, so its RSS is the
 * server's alone. The REST app (`createApp`) over a service on a throw-away
 * schema with a pull queue `bench` (lease rate unlimited), access
 * control off and the server's shutdown signal, plus two bench-only routes: `GET /bench/noop` (a trivial
 * Hono route, the HTTP ceiling) and `POST /bench/batch-routed` (the batch
 * endpoint with every part routed through the app, no combined DELETEs).
 * Commands over IPC: preload, inprocess (the REST cycle's calls made
 * through the API in this process, for comparison), usage (CPU time, and
 * the peak RSS since the last usage), close.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { OPEN_ACCESS } from '../src/auth/access-control.js';
import { batchHandler } from '../src/http/batch/batch-handler.js';
import { createApp } from '../src/http/create-app.js';
import { createLogger } from '../src/ops/create-logger.js';
import { ServiceMetrics } from '../src/ops/service-metrics.js';
import { benchAdd, openBenchService } from './lib/service-bench.js';
import { runCycle } from './lib/cycle.js';

type Command =
  | { readonly cmd: 'preload'; readonly count: number }
  | { readonly cmd: 'inprocess'; readonly count: number; readonly numTasks: number; readonly consumers: number }
  | { readonly cmd: 'usage' }
  | { readonly cmd: 'close' };

if (!process.send) throw new Error('bench/rest-server.ts runs as a child process (fork) of the benchmark');
const send = (message: unknown) => process.send!(message);

const url = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/test';
const poolSize = Number(process.argv[3] ?? 10);
// REST_BENCH_OBSERVED=1: the server's own logger (a JSON line per request on
// stdout) and Prometheus metrics, as `taskqueue` runs by default; without it
// both are off, so the path's own cost shows alone.
const observed = process.env.REST_BENCH_OBSERVED === '1';
const logger = observed ? createLogger({ level: 'info', pretty: false }) : undefined;
const metrics = logger ? new ServiceMetrics(logger) : undefined;
const bench = await openBenchService(url, poolSize, metrics && logger ? { events: metrics.events, logger } : {});
// As the server does: a shutdown signal (a pending long-poll answers when it aborts).
const stopping = new AbortController();
const api = createApp({
  service: bench.service,
  accessControl: OPEN_ACCESS,
  shutdown: stopping.signal,
  ...(logger && metrics ? { logger, httpObserver: metrics.http } : {}),
});
const app = new Hono();
app.get('/bench/noop', (c) => c.json({ ok: true }));
app.post(
  '/bench/batch-routed',
  batchHandler(
    api,
    { service: bench.service, accessControl: OPEN_ACCESS, publicUrl: undefined, adminEmails: undefined },
    { combine: false, concurrency: 1000 },
  ),
);
app.route('/', api);

/**
 * The calls of the REST cycle made in-process: `consumers` loops of one
 * lease of `numTasks` and one `deleteTask(name)` per task, so that REST /
 * in-process is the cost of HTTP for the same calls.
 */
async function perTaskCycle(count: number, numTasks: number, consumers: number): Promise<{ tasksPerSecond: number }> {
  return runCycle(
    {
      lease: (want) => bench.queue.leaseTasks({ lease: 300, maxTasks: want }),
      complete: async (tasks) => {
        for (const task of tasks) await bench.queue.deleteTask(task.name);
      },
    },
    count,
    numTasks,
    consumers,
  );
}

let peakRss = process.memoryUsage().rss;
// rss() alone: the full memoryUsage() walks the heap spaces, which showed in the server's profile at 50 samples a second.
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 20);

const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => {
  const { port } = server.address() as AddressInfo;
  send({ ready: true, url: `http://127.0.0.1:${port}`, project: bench.service.project, queue: 'bench' });
});

process.on('message', (command: Command) => {
  const answer = async (): Promise<unknown> => {
    switch (command.cmd) {
      case 'preload':
        return { tasksPerSecond: await benchAdd(bench.queue, command.count, 4) };
      case 'inprocess':
        await benchAdd(bench.queue, command.count, 4);
        return perTaskCycle(command.count, command.numTasks, command.consumers);
      case 'usage': {
        const { rss } = process.memoryUsage();
        const cpu = process.cpuUsage();
        const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
        const usage = {
          peakRss: Math.max(peakRss, rss),
          rss,
          cpuMicros: cpu.user + cpu.system,
          heapUsed,
          heapTotal,
          external,
          arrayBuffers,
        };
        peakRss = rss;
        return usage;
      }
      case 'close':
        clearInterval(sampler);
        await new Promise<void>((resolve) => {
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          server.close(() => resolve());
        });
        await bench.close();
        return { closed: true };
    }
  };
  answer().then(
    (result) => {
      send({ result });
      if (command.cmd === 'close') process.disconnect();
    },
    (error: unknown) => send({ error: String(error) }),
  );
});
