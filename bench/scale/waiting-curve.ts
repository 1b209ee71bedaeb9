import type { TaskQueue } from '../../src/core/task-queue.js';
import { runCycle } from '../lib/cycle.js';
import { progress } from './progress.js';
import { formatCount } from './svg-chart.js';
import { benchAdd, openBenchService, type BenchService } from '../lib/service-bench.js';
import { latency } from '../lib/stats.js';
import {
  countersExact,
  inRounds,
  medianOfRounds,
  relationSizes,
  seqScans,
  timeOnce,
  type Latency,
  type RelationSizes,
  settle,
} from './measure.js';

/** One point of the waiting-tasks curve. */
export interface WaitingPoint {
  readonly waiting: number;
  readonly fillSeconds: number;
  readonly lease1: Latency;
  readonly lease100: Latency;
  /** Batches of 100, 4 producers, into the full queue. */
  readonly addTasksPerSecond: number;
  readonly tasks: RelationSizes;
  /** Sequential scans of tasks over the whole point (0 = every statement used an index). */
  readonly tasksSeqScans: number;
  readonly countersExact: boolean;
}

/** Lease calls through the service, one consumer, each followed by the delete of what it leased. */
async function leaseLatency(queue: TaskQueue, calls: number, numTasks: number): Promise<Latency> {
  const samples: number[] = [];
  await runCycle(
    {
      lease: async (want) => {
        const t0 = performance.now();
        const tasks = await queue.leaseTasks({ lease: 300, maxTasks: want });
        samples.push(performance.now() - t0);
        return tasks;
      },
      complete: async (tasks) => {
        await queue.deleteTask(tasks);
      },
    },
    calls * numTasks,
    numTasks,
    1,
  );
  const { p50, p99 } = latency(samples);
  return { p50Ms: p50, p99Ms: p99, calls: samples.length };
}

/** Rows per fill statement: the add trigger's transition table holds one statement's rows. */
const FILL_CHUNK = 1_000_000;

/**
 * `count` due tasks in the bench queue (eta a day ago, in the order of their numbers), by
 * INSERT ... SELECT generate_series in statements of FILL_CHUNK rows: the
 * add trigger sees each (storage counters exact, names checked against
 * tombstones), as bench/lib's backlog() does in one statement.
 */
export async function fillTasks(bench: BenchService, count: number, chunk = FILL_CHUNK): Promise<void> {
  const [row] = (await bench.admin.query<{ id: number }>(`select id from ${bench.schema}.queues where name = 'bench'`))
    .rows;
  for (let from = 1; from <= count; from += chunk) {
    await bench.admin.query(
      `insert into ${bench.schema}.tasks (queue_id, name, eta, payload)
       select $1, 'backlog-' || g, now() - interval '1 day' + g * interval '1 microsecond', $2
         from generate_series($3::int8, $4::int8) g`,
      [row!.id, Buffer.alloc(64, 'x'), from, Math.min(count, from + chunk - 1)],
    );
    if (count > chunk)
      progress(`  filled ${formatCount(Math.min(count, from + chunk - 1))} of ${formatCount(count)} tasks`);
  }
}

/**
 * A fresh schema with `waiting` due tasks in one queue (fillTasks), then vacuumed and analyzed as
 * autovacuum would leave it. Measured: leases of 1 and 100 (each followed by
 * a delete, so the head moves), adds into the full queue, table and index sizes.
 */
export async function waitingPoint(url: string, waiting: number): Promise<WaitingPoint> {
  const bench = await openBenchService(url, 10);
  try {
    const fillMs = await timeOnce(async () => {
      await fillTasks(bench, waiting);
      await bench.admin.query(`vacuum (analyze) ${bench.schema}.tasks`);
    });
    await settle(bench.admin);
    const tasks = await relationSizes(bench.admin, bench.schema, 'tasks');
    // Warm-up: the first calls prepare statements and read the index into cache.
    await leaseLatency(bench.queue, 20, 1);
    // Each round first adds (untimed) what it will take, so the queue holds `waiting` tasks throughout.
    const round = (calls: number, numTasks: number) => async () => {
      await benchAdd(bench.queue, calls * numTasks, 4);
      return leaseLatency(bench.queue, calls, numTasks);
    };
    const lease1 = await inRounds(round(300, 1));
    const lease100 = await inRounds(round(60, 100));
    const addTasksPerSecond = await medianOfRounds(() => benchAdd(bench.queue, 20_000, 4));
    await bench.service.close();
    const scans = await seqScans(bench.admin, bench.schema, ['tasks']);
    return {
      waiting,
      fillSeconds: fillMs / 1000,
      lease1,
      lease100,
      addTasksPerSecond,
      tasks,
      tasksSeqScans: scans.tasks ?? 0,
      countersExact: await countersExact(bench.admin, bench.schema),
    };
  } finally {
    await bench.close();
  }
}
