import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { makeWorkerUtils, run } from 'graphile-worker';
import { runAdd, runCycle, type CycleResult } from './cycle.js';

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
    this.boss = new PgBoss({
      connectionString: url,
      schema: this.schema,
      max: poolSize,
      supervise: false,
      schedule: false,
    });
    this.boss.on('error', () => {});
  }

  async setup(): Promise<void> {
    await this.boss.start();
    await this.boss.createQueue('bench');
  }

  add(count: number, producers: number): Promise<number> {
    return runAdd(count, producers, (n) =>
      this.boss.insert(
        'bench',
        Array.from({ length: n }, () => ({ data: PAYLOAD })),
      ),
    );
  }

  cycle(count: number, numTasks: number, consumers: number): Promise<CycleResult> {
    return runCycle<{ id: string }>(
      {
        lease: (want) => this.boss.fetch('bench', { batchSize: want }),
        complete: async (jobs) => {
          await this.boss.complete(
            'bench',
            jobs.map((j) => j.id),
          );
        },
      },
      count,
      numTasks,
      consumers,
    );
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
      return await runAdd(count, producers, (n) =>
        utils.addJobs(Array.from({ length: n }, () => ({ identifier: 'noop', payload: PAYLOAD }))),
      );
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
