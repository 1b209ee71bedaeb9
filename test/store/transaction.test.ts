import { CamelCasePlugin, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestService, testPgUrl, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

describe('adding inside the caller transaction (postgres)', () => {
  let t: TestService;
  let pool: pg.Pool;
  afterEach(async () => {
    await pool?.end();
    await t?.close();
  });

  const setup = async () => {
    t = await openTestService('postgres', serviceConfig([pullQueue('q')]));
    pool = new pg.Pool({ connectionString: testPgUrl(), max: 3 });
    return t.service.getQueue('q');
  };
  const count = async () =>
    Number((await t.sql<{ n: string }>(`select count(*)::text as n from ${t.schema}.tasks`))[0]!.n);

  it('is invisible until the pg client commits, and gone after a rollback', async () => {
    const q = await setup();
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query('create temporary table app_orders (id int)');
      await q.add([{ name: 'with-order', payload: 'x' }], { transaction: client });
      expect(await count()).toBe(0);
      expect(await q.leaseTasks({ lease: 60, maxTasks: 10 })).toEqual([]);
      await client.query('rollback');
      expect(await count()).toBe(0);

      await client.query('begin');
      await q.add({ name: 'with-order', payload: 'y' }, { transaction: client });
      await client.query('commit');
      expect((await q.leaseTasks({ lease: 60, maxTasks: 10 })).map((x) => x.payload.toString())).toEqual(['y']);
    } finally {
      client.release();
    }
  });

  it('joins a Kysely transaction and rolls back with it', async () => {
    const q = await setup();
    const db = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool }) });
    await expect(
      db.transaction().execute(async (trx) => {
        await q.add({ name: 'k1' }, { transaction: trx });
        throw new Error('the application changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    expect(await count()).toBe(0);
    await db.transaction().execute(async (trx) => {
      await q.add([{ name: 'k2' }, { name: 'k3' }], { transaction: trx });
    });
    expect(await count()).toBe(2);
  });

  it("runs our statements without the plugins of the caller's Kysely (CamelCasePlugin)", async () => {
    const q = await setup();
    const db = new Kysely<{ app_orders: { order_id: number } }>({
      dialect: new PostgresDialect({ pool }),
      plugins: [new CamelCasePlugin()],
    });
    await db.transaction().execute(async (trx) => {
      // The caller's own statements still go through its plugins.
      const [row] = (await sql<{ orderId: number }>`select 7 as order_id`.execute(trx)).rows;
      expect(row).toEqual({ orderId: 7 });
      await q.add([{ name: 'camel-1' }, { name: 'camel-2' }], { transaction: trx });
      await q.add({ name: 'camel-3' }, { transaction: trx });
      expect(await count()).toBe(0);
    });
    expect(await count()).toBe(3);
    const trx = await db.startTransaction().execute();
    await q.add({ name: 'controlled' }, { transaction: trx });
    await trx.rollback().execute();
    expect(await count()).toBe(3);
  });

  it('joins a transaction of a bare pg Client', async () => {
    const q = await setup();
    const client = new pg.Client({ connectionString: testPgUrl() });
    await client.connect();
    try {
      await client.query('begin');
      await q.add({ name: 'bare-client' }, { transaction: client });
      expect(await count()).toBe(0);
      await client.query('commit');
      expect(await count()).toBe(1);
    } finally {
      await client.end();
    }
  });

  it('allows at most 5 tasks per transaction and refuses a pool', async () => {
    const q = await setup();
    const client = await pool.connect();
    try {
      await client.query('begin');
      await q.add([{}, {}, {}], { transaction: client });
      await q.add([{}, {}], { transaction: client });
      await expect(q.add({}, { transaction: client })).rejects.toMatchObject({ code: 'TOO_MANY_TASKS' });
      await client.query('commit');
      expect(await count()).toBe(5);
      // The same pooled client starts from zero in its next transaction.
      await client.query('begin');
      await q.add([{}, {}, {}, {}, {}], { transaction: client });
      await client.query('rollback');
      await client.query('begin');
      await q.add([{}, {}, {}, {}, {}], { transaction: client });
      await client.query('commit');
      expect(await count()).toBe(10);
    } finally {
      client.release();
    }
    // @ts-expect-error the type refuses a Pool too; this is the check for callers without types
    await expect(q.add({}, { transaction: pool })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});

describe('what counts as the caller transaction (postgres)', () => {
  let t: TestService;
  let pool: pg.Pool;
  afterEach(async () => {
    await pool?.end();
    await t?.close();
  });

  it('refuses a client outside a transaction, a Kysely instance, and REPEATABLE READ', async () => {
    t = await openTestService('postgres', serviceConfig([pullQueue('q')]));
    pool = new pg.Pool({ connectionString: testPgUrl(), max: 2 });
    const q = t.service.getQueue('q');
    const client = await pool.connect();
    try {
      await expect(q.add({ name: 'loose' }, { transaction: client })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        message: expect.stringMatching(/not inside a transaction/),
      });
      await client.query('begin isolation level repeatable read');
      await expect(q.add({ name: 'snapshot' }, { transaction: client })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        message: expect.stringMatching(/READ COMMITTED/),
      });
      await client.query('rollback');
    } finally {
      client.release();
    }
    const db = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool }) });
    // @ts-expect-error the type refuses a Kysely instance too; this is the check for callers without types
    await expect(q.add({ name: 'no-trx' }, { transaction: db })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    const [row] = await t.sql<{ n: string }>(`select count(*)::text as n from ${t.schema}.tasks`);
    expect(row?.n).toBe('0');
  });
});
