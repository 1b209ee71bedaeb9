import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { makeWorkerUtils, run } from 'graphile-worker';
import { latency } from './stats.js';
import type { CycleResult } from './service-bench.js';

/**
 * What users would pick instead, doing the same work on the same database:
 * pg-boss `fetch` + `complete` at the same batch sizes, and graphile-worker
 * draining the same number of jobs with a no-op task.
 */

const PAYLOAD = { data: 'x'.repeat(56) };

export class PgBossPeer {
  readonly schema = `pgboss_${randomBytes(4).toString('hex')}`;
  readonly boss: PgBoss;
  readonly #url: string;

  constructor(url: string, poolSize: number) {
    this.#url = url;
    this.boss = new PgBoss({ connectionString: url, schema: this.schema, max: poolSize, supervise: false, schedule: false });
    this.boss.on('error', () => {});
  }

  async setup(): Promise<void> {
    await this.boss.start();
    await this.boss.createQueue('bench');
  }

  async add(count: number, producers: number): Promise<number> {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: producers }, async () => {
        while (next < count) {
          const n = Math.min(100, count - next);
          next += n;
          await this.boss.insert('bench', Array.from({ length: n }, () => ({ data: PAYLOAD })));
        }
      }),
    );
    return count / ((performance.now() - started) / 1000);
  }

  async cycle(count: number, numTasks: number, consumers: number): Promise<CycleResult> {
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
          const jobs = await this.boss.fetch('bench', { batchSize: want });
          samples.push(performance.now() - t0);
          claimed -= want - jobs.length;
          if (jobs.length === 0) {
            if (claimed <= done) return;
            await new Promise((resolve) => setTimeout(resolve, 1));
            continue;
          }
          await this.boss.complete('bench', jobs.map((j) => j.id));
          done += jobs.length;
        }
      }),
    );
    const { p50, p99 } = latency(samples);
    return { tasksPerSecond: done / ((performance.now() - started) / 1000), leaseP50Ms: p50, leaseP99Ms: p99 };
  }

  async close(): Promise<void> {
    await this.boss.stop({ graceful: false }).catch(() => {});
    const pool = new pg.Pool({ connectionString: this.#url, max: 1 });
    await pool.query(`drop schema if exists ${this.schema} cascade`);
    await pool.end();
  }
}

export class GraphileWorkerPeer {
  readonly schema = `gw_${randomBytes(4).toString('hex')}`;
  readonly #url: string;

  constructor(url: string) {
    this.#url = url;
  }

  async add(count: number, producers: number): Promise<number> {
    const utils = await makeWorkerUtils({ connectionString: this.#url, schema: this.schema, logger: silentLogger() });
    try {
      await utils.migrate();
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: producers }, async () => {
          while (next < count) {
            const n = Math.min(100, count - next);
            next += n;
            await utils.addJobs(Array.from({ length: n }, () => ({ identifier: 'noop', payload: PAYLOAD })));
          }
        }),
      );
      return count / ((performance.now() - started) / 1000);
    } finally {
      await utils.release();
    }
  }

  /** Drains `count` waiting jobs with a no-op task: `concurrency` workers, local batches of `batch`. */
  async drain(count: number, batch: number, concurrency: number): Promise<number> {
    let completed = 0;
    let resolveDone: () => void = () => {};
    const doneAll = new Promise<void>((resolve) => (resolveDone = resolve));
    const started = performance.now();
    const runner = await run({
      connectionString: this.#url,
      schema: this.schema,
      concurrency,
      noHandleSignals: true,
      pollInterval: 50,
      logger: silentLogger(),
      taskList: { noop: async () => {} },
      preset: { worker: { localQueue: { size: batch }, completeJobBatchDelay: batch > 1 ? 0 : -1 } },
    } as Parameters<typeof run>[0]);
    runner.events.on('job:success', () => {
      completed++;
      if (completed >= count) resolveDone();
    });
    await Promise.race([doneAll, new Promise((resolve) => setTimeout(resolve, 120_000))]);
    const seconds = (performance.now() - started) / 1000;
    await runner.stop();
    return completed / seconds;
  }

  async close(): Promise<void> {
    const pool = new pg.Pool({ connectionString: this.#url, max: 1 });
    await pool.query(`drop schema if exists ${this.schema} cascade`);
    await pool.end();
  }
}

function silentLogger() {
  // graphile-worker's Logger: a factory of scoped log functions.
  return new (class {
    scope() {
      return this;
    }
    error() {}
    warn() {}
    info() {}
    debug() {}
  })() as never;
}
