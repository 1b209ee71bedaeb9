import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { generateTaskName } from '../../src/core/generated-name.js';
import { runAdd, runCycle, type CycleResult } from './cycle.js';

/**
 * The ceiling: the same work written directly with `pg` on a minimal table
 * (one lease statement, one batched delete, no tombstones, no counters, no
 * statistics), as named prepared statements like the service's own. Nothing
 * built on PostgreSQL can do this work faster on the same machine, so our
 * figures are quoted as a share of it.
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
    await this.pool.query(`
      create table ${this.schema}.named_tasks (
        queue text not null,
        name text collate "C" not null,
        eta timestamptz not null default now(),
        payload bytea not null,
        primary key (queue, name))`);
    await this.pool.query(`create index on ${this.schema}.named_tasks (queue, eta)`);
  }

  /**
   * A second ceiling for adds: the same minimal table with a unique name per
   * task as its key (`(queue, name)`), the name made in Node the way the
   * service makes its own. A user's table that deletes, finds or refuses
   * duplicate tasks by a name needs that key; the plain ceiling's bigint
   * identity does less work than that. Created by `setup` beside the plain table.
   */
  addNamed(count: number, producers: number, payload: Buffer): Promise<number> {
    return runAdd(count, producers, (n) =>
      this.pool.query({
        name: `${this.schema}_add_named`,
        text: `insert into ${this.schema}.named_tasks (queue, name, payload) select 'q', n, p from unnest($1::text[], $2::bytea[]) as u (n, p)`,
        values: [Array.from({ length: n }, () => generateTaskName()), Array.from({ length: n }, () => payload)],
      }),
    );
  }

  add(count: number, producers: number, payload: Buffer): Promise<number> {
    return runAdd(count, producers, (n) =>
      this.pool.query({
        name: `${this.schema}_add`,
        text: `insert into ${this.schema}.tasks (queue, payload) select 'q', p from unnest($1::bytea[]) p`,
        values: [Array.from({ length: n }, () => payload)],
      }),
    );
  }

  /** One row per statement (autocommit), `producers` at once: the ceiling of single adds. */
  addSingle(count: number, producers: number, payload: Buffer): Promise<number> {
    return runAdd(
      count,
      producers,
      () =>
        this.pool.query({
          name: `${this.schema}_add1`,
          text: `insert into ${this.schema}.tasks (queue, payload) values ('q', $1)`,
          values: [payload],
        }),
      1,
    );
  }

  cycle(count: number, numTasks: number, consumers: number): Promise<CycleResult> {
    return runCycle<{ id: string }>(
      {
        lease: async (want) =>
          (
            await this.pool.query<{ id: string; payload: Buffer }>({
              name: `${this.schema}_lease`,
              text: `update ${this.schema}.tasks set eta = now() + interval '300 seconds'
                where id = any(array(
                  select id from ${this.schema}.tasks where queue = 'q' and eta <= now()
                   order by eta limit $1 for update skip locked))
               returning id, payload`,
              values: [want],
            })
          ).rows,
        complete: async (rows) => {
          await this.pool.query({
            name: `${this.schema}_delete`,
            text: `delete from ${this.schema}.tasks where id = any($1::bigint[])`,
            values: [rows.map((r) => r.id)],
          });
        },
      },
      count,
      numTasks,
      consumers,
    );
  }

  async close(): Promise<void> {
    await this.pool.query(`drop schema if exists ${this.schema} cascade`);
    await this.pool.end();
  }
}
