import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { preparedStatementPool } from '../../src/store/engine/prepared-pool.js';
import { testPgUrl } from '../helpers/engines.js';

/** The pool view Kysely runs on: what it is asked on release, and what a COMMIT that became a ROLLBACK does. */
describe('the prepared-statement pool under Kysely', () => {
  const pool = new pg.Pool({ connectionString: testPgUrl(), max: 1 });
  const view = preparedStatementPool(pool);
  afterAll(async () => pool.end());

  const backendPid = async (): Promise<number> => {
    const client = await view.connect();
    try {
      const result = (await client.query<{ pid: number }>('select pg_backend_pid() as pid', [])) as {
        rows: { pid: number }[];
      };
      return result.rows[0]!.pid;
    } finally {
      client.release();
    }
  };

  it('a connection released to be discarded is closed, never handed out again', async () => {
    const first = await backendPid();
    expect(await backendPid()).toBe(first);
    const client = await view.connect();
    client.release(true);
    expect(await backendPid()).not.toBe(first);
  });

  it('a transaction PostgreSQL rolled back at COMMIT fails instead of passing silently', async () => {
    const db = new Kysely<object>({
      dialect: new PostgresDialect({
        pool: preparedStatementPool(new pg.Pool({ connectionString: testPgUrl(), max: 1 })),
      }),
    });
    try {
      const run = db.transaction().execute(async (trx) => {
        // An error the callback swallows still aborts the transaction.
        await sql`/* probe */ select 1 / ${0}::int as x`.execute(trx).catch(() => {});
      });
      await expect(run).rejects.toThrow();
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
    } finally {
      await db.destroy();
    }
  });
});
