import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TaskQueue } from '../../src/core/task-queue.js';
import { DEFAULT_RETRY_PARAMETERS, type ServiceConfig } from '../../src/core/queue-config.js';
import { openTaskQueue, type OpenTaskQueue, type OpenTaskQueueOptions } from '../../src/open-task-queue.js';
import { runAdd, runCycle, type CycleResult } from './cycle.js';

export type { CycleResult } from './cycle.js';

/** A service on a throw-away schema of the benchmark database, with an unlimited lease rate. */
export interface BenchService {
  readonly service: OpenTaskQueue;
  readonly queue: TaskQueue;
  readonly schema: string;
  readonly admin: pg.Pool;
  close(): Promise<void>;
}

/** The benchmark's one pull queue, the same on every engine. */
export const BENCH_CONFIG: ServiceConfig = {
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
      retry: DEFAULT_RETRY_PARAMETERS,
      acl: { userEmails: [], writerEmails: [] },
    },
  ],
};

export async function openBenchService(
  url: string,
  poolSize: number,
  extra: Pick<OpenTaskQueueOptions, 'events' | 'logger'> = {},
): Promise<BenchService> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const service = await openTaskQueue({
    databaseUrl: url,
    schema,
    poolSize,
    cleanupIntervalMs: 0,
    config: BENCH_CONFIG,
    ...extra,
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
export function benchAdd(queue: TaskQueue, count: number, producers: number, tag?: string): Promise<number> {
  return runAdd(count, producers, (n) =>
    queue.add(Array.from({ length: n }, () => ({ payload: PAYLOAD, ...(tag ? { tag } : {}) }))),
  );
}

/** `producers` loops adding one task per call (`queue.add(task)`); returns tasks/s. */
export function benchAddSingle(queue: TaskQueue, count: number, producers: number): Promise<number> {
  return runAdd(count, producers, () => queue.add({ payload: PAYLOAD }), 1);
}

/** Fills the queue quickly for cycle benchmarks (through the API, batches of 100, 4 producers). */
export async function preload(queue: TaskQueue, count: number, tag?: string): Promise<void> {
  await benchAdd(queue, count, 4, tag);
}

/** The lease + delete cycle of the in-process API (see runCycle). */
export function benchCycle(
  queue: TaskQueue,
  count: number,
  numTasks: number,
  consumers: number,
  tag?: string,
): Promise<CycleResult> {
  return runCycle(
    {
      lease: (want) => queue.leaseTasks({ lease: 300, maxTasks: want, ...(tag ? { tag } : {}) }),
      complete: async (tasks) => {
        await queue.deleteTask(tasks);
      },
    },
    count,
    numTasks,
    consumers,
  );
}

/**
 * Inserts a large backlog directly in SQL (1,000,000 rows through the API
 * would dominate the run), `taggedShare` of it tagged (tags tag-0..tag-6).
 * All of it is due, so untagged leases take from its head.
 */
export async function backlog(bench: BenchService, count: number, taggedShare = 0): Promise<void> {
  const [row] = (await bench.admin.query<{ id: number }>(`select id from ${bench.schema}.queues where name = 'bench'`))
    .rows;
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
