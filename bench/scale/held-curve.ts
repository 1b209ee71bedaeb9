import type { TaskQueue } from '../../src/core/task-queue.js';
import { progress } from './progress.js';
import { formatCount } from './svg-chart.js';
import { benchAdd, openBenchService } from '../lib/service-bench.js';
import { latency } from '../lib/stats.js';
import { inRounds, relationSizes, seqScans, timeCalls, type Latency, type RelationSizes, settle } from './measure.js';

/**
 * The held names are spread evenly over this many days back from now; the
 * retention is 7 days (the default, which the service opened here keeps), so the oldest 0.7/7.7 (about 9%) are overdue: the
 * backlog a cleanup that fell behind (or the first run after a stop) clears.
 */
const SPAN_DAYS = 7.7;

export interface HeldPoint {
  /** Tombstone rows at the start (caller-named tasks deleted in the last SPAN_DAYS). */
  readonly held: number;
  readonly fillSeconds: number;
  /** The add rate that fills a week of retention with `held` rows, tasks/s. */
  readonly impliedAddRate: number;
  readonly tombstones: RelationSizes;
  /** One task with a caller's name (not held) per call. */
  readonly namedAdd: Latency;
  /** Rows the cleanup removed, and how fast. */
  readonly cleanupRemoved: number;
  readonly cleanupSeconds: number;
  readonly cleanupRowsPerSecond: number;
  /** Cleanup rows/s over the implied add rate (the issue asks ≥ 10). */
  readonly cleanupOverAddRate: number;
  /** Lease (numTasks 1) + delete, one consumer, without and while the cleanup runs. */
  readonly leaseIdle: Latency;
  readonly leaseDuringCleanup: Latency;
  readonly leaseSlowdownP50: number;
  /** After the cleanup, as many new tombstones as it removed and a plain VACUUM: the table's size against the start. */
  readonly afterChurn: RelationSizes;
  readonly bloatRatio: number;
  readonly tombstoneSeqScans: number;
}

/** One lease (numTasks 1) and the delete of what it leased; refills the queue when it runs dry. Returns the lease's ms. */
async function leaseOnce(queue: TaskQueue): Promise<number> {
  const t0 = performance.now();
  const tasks = await queue.leaseTasks({ lease: 300, maxTasks: 1 });
  const ms = performance.now() - t0;
  if (tasks.length > 0) await queue.deleteTask(tasks);
  else await queue.add(Array.from({ length: 100 }, () => ({ payload: Buffer.alloc(64, 'x') })));
  return ms;
}

function toLatency(samples: readonly number[]): Latency {
  const { p50, p99 } = latency(samples);
  return { p50Ms: p50, p99Ms: p99, calls: samples.length };
}

async function leaseCalls(queue: TaskQueue, calls: number): Promise<Latency> {
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) samples.push(await leaseOnce(queue));
  return toLatency(samples);
}

/** Lease calls one after another while `running()`; only calls that start while it runs count. */
async function leaseWhile(queue: TaskQueue, running: () => boolean): Promise<Latency> {
  const samples: number[] = [];
  while (running()) samples.push(await leaseOnce(queue));
  return toLatency(samples);
}

/**
 * A fresh schema holding `held` names of deleted caller-named tasks, spread
 * over the last 7.7 days (one INSERT ... SELECT; tombstones carry no
 * counters), vacuumed and analyzed. Measured: adds with a caller's name
 * (each probes the tombstones' primary key), the cleanup job clearing the
 * overdue rows (rows/s) and a one-task lease loop beside it, and the
 * table's size after the same number of new tombstones and a VACUUM.
 */
export async function heldPoint(url: string, held: number): Promise<HeldPoint> {
  const bench = await openBenchService(url, 10);
  const t = `${bench.schema}.task_tombstones`;
  try {
    const [queue] = (
      await bench.admin.query<{ id: number }>(`select id from ${bench.schema}.queues where name = 'bench'`)
    ).rows;
    const fillStarted = performance.now();
    // In statements of 5M rows, so no one transaction holds the whole fill's WAL.
    for (let from = 1; from <= held; from += 5_000_000) {
      await bench.admin.query(
        `insert into ${t} (queue_id, name, deleted_at, reason)
         select $1, 'held-' || g, now() - ($3 * interval '1 day') * (g::float8 / $2), 'deleted'
           from generate_series($4::int8, $5::int8) g`,
        [queue!.id, held, SPAN_DAYS, from, Math.min(held, from + 5_000_000 - 1)],
      );
      if (held > 5_000_000)
        progress(`  filled ${formatCount(Math.min(held, from + 5_000_000 - 1))} of ${formatCount(held)} tombstones`);
    }
    await bench.admin.query(`vacuum (analyze) ${t}`);
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    await settle(bench.admin);
    const tombstones = await relationSizes(bench.admin, bench.schema, 'task_tombstones');
    const impliedAddRate = held / (SPAN_DAYS * 86_400);

    const payload = Buffer.alloc(64, 'x');
    await timeCalls(20, (i) => bench.queue.add({ name: `warm-${i}`, payload }));
    let added = 0;
    const namedAdd = await inRounds(() => timeCalls(300, () => bench.queue.add({ name: `fresh-${added++}`, payload })));

    await benchAdd(bench.queue, 5_000, 4);
    await leaseCalls(bench.queue, 20);
    const leaseIdle = await inRounds(() => leaseCalls(bench.queue, 200));

    let done = false;
    const cleanupStarted = performance.now();
    const cleanup = bench.service.runCleanup().finally(() => (done = true));
    const leaseDuringCleanup = await leaseWhile(bench.queue, () => !done);
    const result = (await cleanup) as { tombstonesRemoved: number };
    const cleanupSeconds = (performance.now() - cleanupStarted) / 1000;
    const cleanupRowsPerSecond = result.tombstonesRemoved / cleanupSeconds;

    await bench.admin.query(
      `insert into ${t} (queue_id, name, deleted_at, reason)
       select $1, 'churn-' || g, now(), 'deleted' from generate_series(1, $2) g`,
      [queue!.id, result.tombstonesRemoved],
    );
    await bench.admin.query(`vacuum ${t}`);
    const afterChurn = await relationSizes(bench.admin, bench.schema, 'task_tombstones');
    await bench.service.close();
    const scans = await seqScans(bench.admin, bench.schema, ['task_tombstones']);
    return {
      held,
      fillSeconds,
      impliedAddRate,
      tombstones,
      namedAdd,
      cleanupRemoved: result.tombstonesRemoved,
      cleanupSeconds,
      cleanupRowsPerSecond,
      cleanupOverAddRate: cleanupRowsPerSecond / impliedAddRate,
      leaseIdle,
      leaseDuringCleanup,
      leaseSlowdownP50: leaseDuringCleanup.p50Ms / leaseIdle.p50Ms,
      afterChurn,
      bloatRatio: afterChurn.totalBytes / tombstones.totalBytes,
      tombstoneSeqScans: scans.task_tombstones ?? 0,
    };
  } finally {
    await bench.close();
  }
}
