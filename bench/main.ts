/**
 * `npm run bench`: throughput and latency of the in-process API on the real
 * PostgreSQL (DATABASE_URL, default the local test database). Prints tables
 * and writes the figures as JSON to bench/results/. Each figure is the
 * median of 3 runs with its spread in brackets.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { benchAdd, benchCycle, backlog, openBenchService, preload } from './lib/service-bench.js';
import { figure, formatFigure, type Figure } from './lib/stats.js';
import { printTable } from './lib/table.js';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const QUICK = process.argv.includes('--quick');

async function repeat<T>(runs: number, once: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < runs; i++) results.push(await once());
  return results;
}

async function main(): Promise<void> {
  const results: Record<string, unknown> = { date: new Date().toISOString(), database: 'postgres', runs: RUNS };
  const started = Date.now();

  // Add, batches of 100.
  const addRows: string[][] = [];
  const add: Record<string, Figure> = {};
  for (const producers of [1, 4]) {
    const runs = await repeat(RUNS, async () => {
      const bench = await openBenchService(URL, 20);
      try {
        return await benchAdd(bench.queue, QUICK ? 5_000 : 20_000, producers);
      } finally {
        await bench.close();
      }
    });
    add[`producers=${producers}`] = figure(runs);
    addRows.push([`${producers}`, formatFigure(figure(runs))]);
  }
  printTable('add, batches of 100 (tasks/s)', ['producers', 'tasks/s'], addRows);
  results.add = add;

  // Lease + delete cycle.
  const cycleRows: string[][] = [];
  const cycle: Record<string, unknown> = {};
  for (const numTasks of [1, 100, 1000]) {
    for (const consumers of [1, 4, 16]) {
      const count = numTasks === 1 ? (QUICK ? 500 : 3_000) : Math.max(QUICK ? 5_000 : 20_000, numTasks * consumers * 3);
      const runs = await repeat(RUNS, async () => {
        const bench = await openBenchService(URL, Math.max(10, consumers + 2));
        try {
          await preload(bench.queue, count);
          return await benchCycle(bench.queue, count, numTasks, consumers);
        } finally {
          await bench.close();
        }
      });
      const tps = figure(runs.map((r) => r.tasksPerSecond));
      const p50 = figure(runs.map((r) => r.leaseP50Ms));
      const p99 = figure(runs.map((r) => r.leaseP99Ms));
      cycle[`numTasks=${numTasks},consumers=${consumers}`] = { tasksPerSecond: tps, leaseP50Ms: p50, leaseP99Ms: p99 };
      cycleRows.push([`${numTasks}`, `${consumers}`, formatFigure(tps), formatFigure(p50, 2), formatFigure(p99, 2)]);
    }
  }
  printTable('lease + delete cycle', ['numTasks', 'consumers', 'tasks/s', 'lease p50 ms', 'lease p99 ms'], cycleRows);
  results.cycle = cycle;

  // The same with a large backlog waiting.
  const waiting = QUICK ? 100_000 : 1_000_000;
  const growthRows: string[][] = [];
  const growth: Record<string, unknown> = {};
  const bench = await openBenchService(URL, 20);
  try {
    await backlog(bench, waiting);
    for (const [numTasks, consumers] of [[1, 4], [100, 4], [100, 16]] as const) {
      const count = numTasks === 1 ? 3_000 : 20_000;
      // Top the backlog up first, so every run leases from `waiting` tasks.
      const runs = await repeat(RUNS, async () => {
        await preload(bench.queue, count);
        return benchCycle(bench.queue, count, numTasks, consumers);
      });
      const tps = figure(runs.map((r) => r.tasksPerSecond));
      const p50 = figure(runs.map((r) => r.leaseP50Ms));
      const p99 = figure(runs.map((r) => r.leaseP99Ms));
      growth[`numTasks=${numTasks},consumers=${consumers}`] = { tasksPerSecond: tps, leaseP50Ms: p50, leaseP99Ms: p99 };
      growthRows.push([`${numTasks}`, `${consumers}`, formatFigure(tps), formatFigure(p50, 2), formatFigure(p99, 2)]);
    }
  } finally {
    await bench.close();
  }
  printTable(`lease + delete cycle with ${waiting.toLocaleString('en-US')} tasks waiting`, ['numTasks', 'consumers', 'tasks/s', 'lease p50 ms', 'lease p99 ms'], growthRows);
  results.backlog = { waiting, ...growth };

  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwrote ${file} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

await main();
