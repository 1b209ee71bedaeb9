/**
 * The embedded engine's benchmark: a process of its own (forked by
 * bench/lib/pglite-section.ts), so that its peak RSS is the service's and
 * PGlite's alone. Opens the service on PGlite in a fresh data directory (the
 * embedded default keeps its data on disk), then runs the same add and
 * lease + delete loops as the PostgreSQL sections and sends back the figures
 * with the process's peak RSS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTaskQueue } from '../src/open-task-queue.js';
import { BENCH_CONFIG, benchAdd, benchCycle, preload } from './lib/service-bench.js';
import type { PgliteRun } from './lib/pglite-section.js';

if (!process.send) throw new Error('bench/pglite-bench.ts runs as a child process (fork) of the benchmark');

const quick = process.argv.includes('--quick');
const dataDir = mkdtempSync(join(tmpdir(), 'taskqueue-bench-pglite-'));
const service = await openTaskQueue({
  dataDir,
  databaseUrl: null,
  cleanupIntervalMs: 0,
  config: BENCH_CONFIG,
});
try {
  const queue = service.getQueue('bench');
  const openedRss = process.memoryUsage().rss;
  const addCount = quick ? 5_000 : 20_000;
  const add = await benchAdd(queue, addCount, 4);
  // Drain what the add left, so every cycle starts from an empty queue.
  await benchCycle(queue, addCount, 100, 1);
  const cycle: PgliteRun['cycle'] = {};
  for (const numTasks of [1, 100]) {
    for (const consumers of [1, 4]) {
      const count = numTasks === 1 ? (quick ? 500 : 2_000) : quick ? 5_000 : 20_000;
      await preload(queue, count);
      cycle[`numTasks=${numTasks},consumers=${consumers}`] = await benchCycle(queue, count, numTasks, consumers);
    }
  }
  const result: PgliteRun = {
    add,
    cycle,
    openedRssBytes: openedRss,
    // maxRSS is in kilobytes: the peak of the whole process, PGlite's heap included.
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
  process.send({ result });
} catch (error) {
  process.send({ error: String(error) });
} finally {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}
