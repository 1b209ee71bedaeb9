/**
 * `npm run bench`: throughput and latency of the in-process API on the real
 * PostgreSQL (DATABASE_URL, default the local test database).
 * `npm run bench -- --compare` adds, in the same run and on the same
 * database: the raw SQL ceiling, pg-boss and graphile-worker, and the REST
 * interface (when built). Every figure is the median of BENCH_RUNS (3) runs
 * with its spread; comparisons are ratios within this run. Results are
 * printed and written as JSON to bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { benchAccounting } from './lib/accounting-bench.js';
import { addBatchesSection } from './lib/add-bench.js';
import { GraphileWorkerPeer, PgBossPeer } from './lib/peers.js';
import { RawSqlQueue } from './lib/raw-sql.js';
import {
  benchAddSingle,
  benchCycle,
  backlog,
  openBenchService,
  preload,
  type CycleResult,
} from './lib/service-bench.js';
import { figure, formatFigure, type Figure } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { runRestBench } from './lib/rest-bench.js';
import { pgliteSection } from './lib/pglite-section.js';
import { benchSqlApiOnce } from './lib/sql-api-bench.js';
import { benchWorker } from './lib/worker-bench.js';
import { pushSection } from './lib/push-bench.js';
import { appEngineSection } from './lib/appengine-bench.js';
import { runScale } from './scale/run-scale.js';
import { checkBenchArgs } from './lib/bench-usage.js';
import { runCitusBench } from './citus-bench.js';

checkBenchArgs(process.argv.slice(2));

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const COMPARE = process.argv.includes('--compare');
const QUICK = process.argv.includes('--quick');
const PAYLOAD = Buffer.alloc(64, 'x');

async function repeat<T>(once: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < RUNS; i++) results.push(await once());
  return results;
}

const ratio = (a: Figure, b: Figure) => `${(a.median / b.median).toFixed(2)}x`;

function cycleFigures(runs: CycleResult[]) {
  return {
    tasksPerSecond: figure(runs.map((r) => r.tasksPerSecond)),
    leaseP50Ms: figure(runs.map((r) => r.leaseP50Ms)),
    leaseP99Ms: figure(runs.map((r) => r.leaseP99Ms)),
  };
}

async function addSection(results: Record<string, unknown>): Promise<void> {
  const { producers, rows, section } = await addBatchesSection({ url: URL, quick: QUICK, compare: COMPARE, repeat });
  printTable(
    `add, batches of 100, ${producers} producers (tasks/s)`,
    ['', 'tasks/s', 'vs raw', 'Node CPU us/task'],
    rows,
  );
  // Single-task adds from 16 producers: each add is a commit of its own unless concurrent adds share a statement.
  const singleCount = QUICK ? 2_000 : 5_000;
  const single = figure(
    await repeat(async () => {
      const bench = await openBenchService(URL, 10);
      try {
        return await benchAddSingle(bench.queue, singleCount, 16);
      } finally {
        await bench.close();
      }
    }),
  );
  const singleRows: string[][] = [['taskqueue', formatFigure(single), '']];
  section.single = { taskqueue: single };
  if (COMPARE) {
    const raw = figure(
      await repeat(async () => {
        const q = new RawSqlQueue(URL, 18);
        await q.setup();
        try {
          return await q.addSingle(singleCount, 16, PAYLOAD);
        } finally {
          await q.close();
        }
      }),
    );
    singleRows.unshift(['raw SQL, one insert per statement', formatFigure(raw), '1.00x']);
    singleRows[1]![2] = ratio(single, raw);
    Object.assign(section.single as object, { raw, taskqueueOverRaw: single.median / raw.median });
  }
  printTable('add, one task per call, 16 producers (tasks/s)', ['', 'tasks/s', 'vs raw'], singleRows);
  results.add = section;
}

async function cycleSection(results: Record<string, unknown>): Promise<void> {
  const rows: string[][] = [];
  const section: Record<string, unknown> = {};
  for (const numTasks of [1, 100, 1000]) {
    for (const consumers of [1, 4, 16]) {
      const count = numTasks === 1 ? (QUICK ? 500 : 2_000) : Math.max(QUICK ? 5_000 : 20_000, numTasks * consumers * 3);
      const ours = cycleFigures(
        await repeat(async () => {
          const bench = await openBenchService(URL, Math.max(10, consumers + 2));
          try {
            await preload(bench.queue, count);
            return await benchCycle(bench.queue, count, numTasks, consumers);
          } finally {
            await bench.close();
          }
        }),
      );
      const cell: Record<string, unknown> = { taskqueue: ours };
      const row = [
        `${numTasks}`,
        `${consumers}`,
        formatFigure(ours.tasksPerSecond),
        formatFigure(ours.leaseP50Ms, 2),
        formatFigure(ours.leaseP99Ms, 2),
      ];
      if (COMPARE) {
        const raw = cycleFigures(
          await repeat(async () => {
            const q = new RawSqlQueue(URL, Math.max(10, consumers + 2));
            await q.setup();
            try {
              await q.add(count, 4, PAYLOAD);
              return await q.cycle(count, numTasks, consumers);
            } finally {
              await q.close();
            }
          }),
        );
        const boss = cycleFigures(
          await repeat(async () => {
            const peer = new PgBossPeer(URL, Math.max(10, consumers + 2));
            await peer.setup();
            try {
              await peer.add(count, 4);
              return await peer.cycle(count, numTasks, consumers);
            } finally {
              await peer.close();
            }
          }),
        );
        Object.assign(cell, {
          raw,
          pgBoss: boss,
          taskqueueOverRaw: ours.tasksPerSecond.median / raw.tasksPerSecond.median,
          taskqueueOverPgBoss: ours.tasksPerSecond.median / boss.tasksPerSecond.median,
        });
        row.push(
          formatFigure(raw.tasksPerSecond),
          formatFigure(boss.tasksPerSecond),
          ratio(ours.tasksPerSecond, raw.tasksPerSecond),
          ratio(ours.tasksPerSecond, boss.tasksPerSecond),
        );
      }
      section[`numTasks=${numTasks},consumers=${consumers}`] = cell;
      rows.push(row);
    }
  }
  const header = ['numTasks', 'consumers', 'tasks/s', 'lease p50 ms', 'lease p99 ms'];
  if (COMPARE) header.push('raw tasks/s', 'pg-boss tasks/s', 'vs raw', 'vs pg-boss');
  printTable('lease + delete cycle', header, rows);
  results.cycle = section;

  if (COMPARE) {
    const gwRows: string[][] = [];
    const gw: Record<string, Figure> = {};
    for (const batch of [1, 100]) {
      const count = batch === 1 ? 5_000 : 20_000;
      const f = figure(
        await repeat(async () => {
          const peer = new GraphileWorkerPeer(URL);
          try {
            await peer.add(count, 4);
            return await peer.drain(count, batch, 16);
          } finally {
            await peer.close();
          }
        }),
      );
      gw[`localQueue=${batch}`] = f;
      const ours = (section[`numTasks=${batch},consumers=16`] as { taskqueue: { tasksPerSecond: Figure } }).taskqueue
        .tasksPerSecond;
      gwRows.push([`${batch}`, formatFigure(f), formatFigure(ours), ratio(ours, f)]);
    }
    printTable(
      'graphile-worker drain, 16 workers, no-op task (tasks/s)',
      ['batch', 'graphile-worker', 'taskqueue (16 consumers)', 'taskqueue vs gw'],
      gwRows,
    );
    results.graphileWorker = gw;
  }
}

/** Storage accounting under concurrency: sharded counters against one hot row per queue. */
/**
 * The worker runner against the hand-written loop it replaces, side by side
 * in each run (A then B on fresh schemas): 16 loops of lease(1) + delete,
 * and `queue.work` with concurrency 16 and a no-op handler. The target is
 * a ratio of at least 0.85 (the runner's renewal timers, events and fenced
 * deletes cost little).
 */
async function workerSection(results: Record<string, unknown>): Promise<void> {
  const count = QUICK ? 3_000 : 10_000;
  const hand: number[] = [];
  const runner: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const once = async (run: (bench: Awaited<ReturnType<typeof openBenchService>>) => Promise<number>) => {
      const bench = await openBenchService(URL, 18);
      try {
        await preload(bench.queue, count);
        return await run(bench);
      } finally {
        await bench.close();
      }
    };
    const a = await once(async (bench) => (await benchCycle(bench.queue, count, 1, 16)).tasksPerSecond);
    const b = await once((bench) => benchWorker(bench.queue, count, 16));
    hand.push(a);
    runner.push(b);
    ratios.push(b / a);
  }
  const handFigure = figure(hand);
  const runnerFigure = figure(runner);
  const ratio = figure(ratios);
  printTable(
    `worker runner, no-op handler, concurrency 16 (tasks/s; ratio per run, target >= 0.85x)`,
    ['', 'tasks/s', 'vs loop'],
    [
      ['hand-written loop: 16 x (lease 1 + delete)', formatFigure(handFigure), '1.00x'],
      ['queue.work({ concurrency: 16 })', formatFigure(runnerFigure), `${ratio.median.toFixed(2)}x`],
    ],
  );
  results.worker = { handWritten: handFigure, queueWork: runnerFigure, ratio };
}

async function accountingSection(results: Record<string, unknown>): Promise<void> {
  const rows: string[][] = [];
  const section: Record<string, unknown> = {};
  for (const inTransaction of [false, true]) {
    const figures: Record<string, Figure> = {};
    for (const variant of ['sharded', 'one-row', 'sharded+limit'] as const) {
      const runs = await repeat(() => benchAccounting(URL, variant, 16, QUICK ? 50 : 100, inTransaction));
      if (!runs.every((r) => r.exact)) throw new Error(`storage counters drifted (${variant})`);
      figures[variant] = figure(runs.map((r) => r.opsPerSecond));
    }
    const sharded = figures.sharded!;
    for (const [variant, f] of Object.entries(figures)) {
      rows.push([inTransaction ? 'app transaction, 2 ms' : 'autocommit', variant, formatFigure(f), ratio(f, sharded)]);
    }
    section[inTransaction ? 'inTransaction' : 'autocommit'] = figures;
  }
  printTable(
    'storage accounting: 16 producers, single adds and deletes (ops/s; counters checked exact)',
    ['adds', 'counters', 'ops/s', 'vs sharded'],
    rows,
  );
  results.accounting = section;
}

async function growthSection(results: Record<string, unknown>): Promise<void> {
  const sizes = QUICK ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
  const rows: string[][] = [];
  const section: Record<string, unknown> = {};
  for (const tagged of [false, true]) {
    for (const waiting of sizes) {
      const bench = await openBenchService(URL, 10);
      try {
        await backlog(bench, waiting, tagged ? 0.1 : 0);
        const count = 10_000;
        // Tagged: lease by tag ('hot', only the tasks this run adds) past a
        // backlog whose tenth is tagged otherwise; untagged: from the head.
        const tag = tagged ? 'hot' : undefined;
        const runs = await repeat(async () => {
          await preload(bench.queue, count, tag);
          return benchCycle(bench.queue, count, 100, 4, tag);
        });
        const f = cycleFigures(runs);
        section[`waiting=${waiting},tagged=${tagged}`] = f;
        rows.push([
          waiting.toLocaleString('en-US'),
          tagged ? 'yes' : 'no',
          formatFigure(f.tasksPerSecond),
          formatFigure(f.leaseP50Ms, 2),
          formatFigure(f.leaseP99Ms, 2),
        ]);
      } finally {
        await bench.close();
      }
    }
  }
  printTable(
    'growth: lease + delete (numTasks 100, 4 consumers) with tasks waiting',
    ['waiting', 'lease by tag, 10% tagged', 'tasks/s', 'lease p50 ms', 'lease p99 ms'],
    rows,
  );
  const first = section[`waiting=${sizes[0]},tagged=false`] as { leaseP99Ms: Figure };
  const last = section[`waiting=${sizes.at(-1)},tagged=false`] as { leaseP99Ms: Figure };
  const growth = last.leaseP99Ms.median / first.leaseP99Ms.median;
  console.log(
    `lease p99 growth ${sizes[0]!.toLocaleString('en-US')} -> ${sizes.at(-1)!.toLocaleString('en-US')} waiting: ${growth.toFixed(2)}x`,
  );
  results.growth = { ...section, p99Growth: growth };
}

/** The SQL API (docs/sql-api.md) beside the in-process API, same run, same database: ratio SQL / service. */
async function sqlApiSection(results: Record<string, unknown>): Promise<void> {
  const runs = await repeat(() => benchSqlApiOnce(URL, QUICK));
  const pick = (path: 'service' | 'sql', row: (f: (typeof runs)[number]['service']) => number) =>
    figure(runs.map((r) => row(r[path])));
  type Work = keyof (typeof runs)[number]['ratios'];
  const rows: [string, (f: (typeof runs)[number]['service']) => number, Work][] = [
    ['add, batches of 100, 4 producers', (f) => f.add100, 'add100'],
    ['add, one task per call, 4 producers', (f) => f.add1, 'add1'],
    ['lease+delete, numTasks 1, 4 consumers', (f) => f.cycle1.tasksPerSecond, 'cycle1'],
    ['lease+delete, numTasks 100, 4 consumers', (f) => f.cycle100.tasksPerSecond, 'cycle100'],
  ];
  const section: Record<string, unknown> = {};
  printTable(
    'SQL API vs in-process API (tasks/s; the ratio is the median of back-to-back pairs, with its spread)',
    ['work', 'in-process', 'SQL functions', 'SQL / in-process'],
    rows.map(([label, row, work]) => {
      const service = pick('service', row);
      const viaSql = pick('sql', row);
      const pairRatios = runs.flatMap((r) => r.ratios[work]);
      const pairRatio = figure(pairRatios);
      section[label] = { service, sql: viaSql, pairRatios, ratio: pairRatio };
      return [
        label,
        formatFigure(service),
        formatFigure(viaSql),
        `${pairRatio.median.toFixed(2)}x [${pairRatio.min.toFixed(2)}-${pairRatio.max.toFixed(2)}]`,
      ];
    }),
  );
  results.sqlApi = section;
}

/** `--only=` (BENCH_SECTIONS): run just those sections (to iterate on one; the docs quote full runs). */
const ONLY = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const wanted = (section: string) => ONLY === undefined || ONLY.includes(section);

async function main(): Promise<void> {
  const started = Date.now();
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    runs: RUNS,
    compare: COMPARE,
    quick: QUICK,
  };
  if (wanted('add')) await addSection(results);
  if (wanted('cycle')) await cycleSection(results);
  if (wanted('worker')) await workerSection(results);
  if (wanted('accounting')) await accountingSection(results);
  if (wanted('growth')) await growthSection(results);
  if (wanted('sqlapi')) await sqlApiSection(results);
  if (wanted('pglite')) {
    const cycle = (results.cycle ?? {}) as Record<string, { taskqueue: { tasksPerSecond: Figure } }>;
    const add = (results.add as { taskqueue: Figure } | undefined)?.taskqueue;
    results.pglite = await pgliteSection(RUNS, QUICK, {
      ...(add === undefined ? {} : { add }),
      cycle: Object.fromEntries(Object.entries(cycle).map(([key, cell]) => [key, cell.taskqueue.tasksPerSecond])),
    });
  }
  if (wanted('push')) results.push = await pushSection(URL, RUNS, QUICK);
  if (wanted('appengine')) results.appengine = await appEngineSection(URL, RUNS, QUICK);
  if (COMPARE && wanted('rest')) {
    // The raw SQL ceiling of the cycle section at numTasks 100, 16 consumers: what the REST batch path is quoted against.
    const rawCycle = (results.cycle as Record<string, { raw?: { tasksPerSecond: Figure } }> | undefined)?.[
      'numTasks=100,consumers=16'
    ]?.raw;
    results.rest = await runRestBench(URL, RUNS, QUICK, rawCycle?.tasksPerSecond);
  }
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwrote ${file} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

// `--scale`: the scale curves instead of the grid (bench/scale/run-scale.ts; `--curves=`, `--points=`, `--write-docs`);
// `--citus`: plain PostgreSQL against a Citus coordinator (bench/citus-bench.ts).
if (process.argv.includes('--scale')) await runScale(URL, process.argv);
else if (process.argv.includes('--citus')) await runCitusBench(URL, process.argv.slice(2));
else await main();
