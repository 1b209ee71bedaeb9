import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TaskQueue } from '../../src/core/task-queue.js';
import { openTaskQueue, type OpenTaskQueue } from '../../src/open-task-queue.js';
import { latency } from './stats.js';

/** A service on a throw-away schema of the benchmark database, with an unlimited lease rate. */
export interface BenchService {
  readonly service: OpenTaskQueue;
  readonly queue: TaskQueue;
  readonly schema: string;
  readonly admin: pg.Pool;
  close(): Promise<void>;
}

export async function openBenchService(url: string, poolSize: number): Promise<BenchService> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const service = await openTaskQueue({
    databaseUrl: url,
    schema,
    poolSize,
    cleanupIntervalMs: 0,
    config: {
      source: 'bench',
      totalStorageLimitBytes: null,
      adminEmails: [],
      queues: [
        {
          name: 'bench',
          mode: 'pull',
          maxLeases: null,
          storageLimitBytes: null,
          // Benchmarks lift the default of 10 lease calls per second.
          leaseRate: null,
          acl: { userEmails: [], writerEmails: [] },
        },
      ],
    },
  });
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  return {
    service,
    queue: service.getQueue('bench'),
    schema,
    admin,
    close: async () => {
      await service.close();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    },
  };
}

const PAYLOAD = Buffer.alloc(64, 'x');

/** Adds `count` tasks in batches of 100 with `producers` concurrent producers; returns tasks/s. */
export async function benchAdd(queue: TaskQueue, count: number, producers: number, tag?: string): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: producers }, async () => {
      while (next < count) {
        const n = Math.min(100, count - next);
        next += n;
        await queue.add(Array.from({ length: n }, () => ({ payload: PAYLOAD, ...(tag ? { tag } : {}) })));
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/** Fills the queue quickly for cycle benchmarks (through the API, batches of 100, 4 producers). */
export async function preload(queue: TaskQueue, count: number, tag?: string): Promise<void> {
  await benchAdd(queue, count, 4, tag);
}

export interface CycleResult {
  readonly tasksPerSecond: number;
  readonly leaseP50Ms: number;
  readonly leaseP99Ms: number;
}

/**
 * `consumers` loops of lease(numTasks) + delete(those tasks) until `count`
 * tasks are done. Lease latency is sampled per lease call.
 */
export async function benchCycle(
  queue: TaskQueue,
  count: number,
  numTasks: number,
  consumers: number,
  tag?: string,
): Promise<CycleResult> {
  let done = 0;
  let claimed = 0;
  const samples: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: consumers }, async () => {
      while (claimed < count) {
        const want = Math.min(numTasks, count - claimed);
        claimed += want;
        const t0 = performance.now();
        const tasks = await queue.leaseTasks({ lease: 300, maxTasks: want, ...(tag ? { tag } : {}) });
        samples.push(performance.now() - t0);
        claimed -= want - tasks.length;
        if (tasks.length === 0) {
          // Empty queue: stop once no other consumer still holds tasks.
          if (claimed <= done) return;
          await new Promise((resolve) => setTimeout(resolve, 1));
          continue;
        }
        await queue.deleteTask(tasks);
        done += tasks.length;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const { p50, p99 } = latency(samples);
  return { tasksPerSecond: done / seconds, leaseP50Ms: p50, leaseP99Ms: p99 };
}

/**
 * Inserts a large backlog directly in SQL (1,000,000 rows through the API
 * would dominate the run), `taggedShare` of it tagged (tags tag-0..tag-6).
 * All of it is due, so untagged leases take from its head.
 */
export async function backlog(bench: BenchService, count: number, taggedShare = 0): Promise<void> {
  const [row] = (await bench.admin.query<{ id: number }>(`select id from ${bench.schema}.queues where name = 'bench'`)).rows;
  const every = taggedShare > 0 ? Math.round(1 / taggedShare) : 0;
  await bench.admin.query(
    `insert into ${bench.schema}.tasks (queue_id, name, eta, tag, payload)
     select $1, 'backlog-' || g, now() - interval '1 day' + g * interval '1 microsecond',
            case when $4::int4 > 0 and g % $4::int4 = 0 then 'tag-' || (g % 7) end, $2
       from generate_series(1, $3) g`,
    [row!.id, PAYLOAD, count, every],
  );
  await bench.admin.query(`analyze ${bench.schema}.tasks`);
}
