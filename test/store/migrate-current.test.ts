import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/engine/database.js';
import { migrate } from '../../src/store/migrate/migrate.js';
import { MIGRATIONS } from '../../src/store/migrate/migrations.js';
import { freshSchema, testPgUrl } from '../helpers/engines.js';

/**
 * A start on a schema that is current checks and leaves: one read of the
 * applied versions, no transaction, no advisory lock, no DDL. Shown by
 * holding the migration lock elsewhere: a current schema's migrate does
 * not wait for it; a schema that is not current does.
 */
describe('migrate on a current schema (postgres)', () => {
  const schemas: string[] = [];
  afterEach(async () => {
    const pool = new pg.Pool({ connectionString: testPgUrl(), max: 1 });
    for (const schema of schemas.splice(0)) await pool.query(`drop schema if exists ${schema} cascade`);
    await pool.end();
  });

  /** Resolves to what `work` resolved to, or to 'waiting' once the deadline passes first. */
  async function within<T>(work: Promise<T>, ms: number): Promise<T | 'waiting'> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'waiting'>((resolve) => (timer = setTimeout(() => resolve('waiting'), ms)));
    try {
      return await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  it('returns at once while another process holds the migration lock; a new schema waits for it', async () => {
    const schema = freshSchema();
    schemas.push(schema);
    const database = await openDatabase({ kind: 'postgres', url: testPgUrl(), poolSize: 2 });
    const holder = new pg.Client({ connectionString: testPgUrl() });
    await holder.connect();
    try {
      const first = await migrate(database.db, schema);
      expect(first.applied).toHaveLength(MIGRATIONS.length);

      await holder.query('begin');
      await holder.query('select pg_advisory_xact_lock(29809, hashtext($1))', [`migrate:${schema}`]);
      // Generous: a busy machine answers a round trip in well under this.
      expect(await within(migrate(database.db, schema), 20_000)).toEqual({
        schema,
        applied: [],
        current: MIGRATIONS.at(-1)!.version,
        routines: [],
      });

      await holder.query('rollback');

      // A schema that is not current takes the real path, which waits for the lock.
      const fresh = freshSchema();
      schemas.push(fresh);
      await holder.query('begin');
      await holder.query('select pg_advisory_xact_lock(29809, hashtext($1))', [`migrate:${fresh}`]);
      const behind = migrate(database.db, fresh);
      const pid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      // Waits until that migrate is seen blocked on the holder's lock (pg_blocking_pids), then lets it go.
      const deadline = Date.now() + 60_000;
      for (;;) {
        const blocked = await holder.query('select 1 from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [
          pid,
        ]);
        if ((blocked.rowCount ?? 0) > 0) break;
        if (Date.now() > deadline) throw new Error('the migrate of a new schema never waited for the lock');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await holder.query('rollback');
      expect((await behind).applied).toHaveLength(MIGRATIONS.length);
    } finally {
      await holder.query('rollback').catch(() => {});
      await holder.end();
      await database.close();
    }
  });
});
