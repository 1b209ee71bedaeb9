import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { latency } from './stats.js';
import type { CycleResult } from './service-bench.js';

/**
 * The ceiling: the same work written directly with `pg` on a minimal table
 * (one lease statement, one batched delete, no tombstones, no counters, no
 * statistics). Nothing built on PostgreSQL can do this work faster on the
 * same machine, so our figures are quoted as a share of it.
 */
export class RawSqlQueue {
  readonly pool: pg.Pool;
  readonly schema = `raw_${randomBytes(4).toString('hex')}`;

  constructor(url: string, poolSize: number) {
    this.pool = new pg.Pool({ connectionString: url, max: poolSize });
  }

  async setup(): Promise<void> {
    await this.pool.query(`create schema ${this.schema}`);
    await this.pool.query(`
      create table ${this.schema}.tasks (
        id bigint generated always as identity primary key,
        queue text not null,
        eta timestamptz not null default now(),
        payload bytea not null)`);
    await this.pool.query(`create index on ${this.schema}.tasks (queue, eta)`);
  }

  async add(count: number, producers: number, payload: Buffer): Promise<number> {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: producers }, async () => {
        while (next < count) {
          const n = Math.min(100, count - next);
          next += n;
          await this.pool.query(
            `insert into ${this.schema}.tasks (queue, payload) select 'q', p from unnest($1::bytea[]) p`,
            [Array.from({ length: n }, () => payload)],
          );
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
          const { rows } = await this.pool.query<{ id: string; payload: Buffer }>(
            `update ${this.schema}.tasks set eta = now() + interval '300 seconds'
              where id = any(array(
                select id from ${this.schema}.tasks where queue = 'q' and eta <= now()
                 order by eta limit $1 for update skip locked))
             returning id, payload`,
            [want],
          );
          samples.push(performance.now() - t0);
          claimed -= want - rows.length;
          if (rows.length === 0) {
            if (claimed <= done) return;
            await new Promise((resolve) => setTimeout(resolve, 1));
            continue;
          }
          await this.pool.query(`delete from ${this.schema}.tasks where id = any($1::bigint[])`, [rows.map((r) => r.id)]);
          done += rows.length;
        }
      }),
    );
    const { p50, p99 } = latency(samples);
    return { tasksPerSecond: done / ((performance.now() - started) / 1000), leaseP50Ms: p50, leaseP99Ms: p99 };
  }

  async close(): Promise<void> {
    await this.pool.query(`drop schema if exists ${this.schema} cascade`);
    await this.pool.end();
  }
}
