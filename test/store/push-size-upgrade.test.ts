import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { dropSchemas, freshSchema, testPgUrl } from '../helpers/engines.js';

/**
 * sql/0017 rebuilds tasks.size_bytes to count push requests and recounts the
 * storage counters from the rows: a schema upgraded with push tasks already
 * in it ends with counters equal to the new sizes, and they stay exact.
 */
describe('upgrading a schema with push tasks to 0017', () => {
  const schema = freshSchema();
  afterAll(async () => dropSchemas(schema));

  it('recounts the storage counters with the push requests of existing tasks', async () => {
    const client = new pg.Client({ connectionString: testPgUrl() });
    await client.connect();
    try {
      // The schema as it was before 0017, applied the way migrate() applies it.
      await client.query('begin');
      await client.query(`create schema ${schema}`);
      await client.query(`set local search_path to ${schema}`);
      await client.query(
        `create table schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`,
      );
      for (const m of MIGRATIONS.filter((m) => m.version < 17)) {
        await client.query(m.text);
        await client.query('insert into schema_migrations (version, name) values ($1, $2)', [m.version, m.name]);
      }
      await client.query(`insert into queues (name, mode) values ('h', 'push'), ('p', 'pull')`);
      await client.query(
        `insert into tasks (queue_id, name, eta, payload, push)
         select q.id, 't' || i, now(), '\\x0102'::bytea,
                case when q.mode = 'push' then jsonb_build_object('url', '/' || repeat('u', 100), 'method', 'POST', 'headers', '[]'::jsonb) end
           from queues q, generate_series(1, 3) i`,
      );
      await client.query('commit');
      const counted = async () =>
        (
          await client.query<{ counted: string; stored: string }>(
            `select (select sum(byte_count) from ${schema}.queue_storage)::text as counted, (select sum(size_bytes) from ${schema}.tasks)::text as stored`,
          )
        ).rows[0]!;
      // Before: payload and name only (6 tasks of 2 + 2 bytes).
      expect(await counted()).toEqual({ counted: '24', stored: '24' });

      const database = await openDatabase({ kind: 'postgres', url: testPgUrl(), poolSize: 1 });
      try {
        expect((await migrate(database.db, schema)).applied).toEqual(
          MIGRATIONS.filter((m) => m.version >= 17).map((m) => m.version),
        );
      } finally {
        await database.close();
      }
      const after = await counted();
      expect(after.counted).toBe(after.stored);
      expect(Number(after.stored)).toBeGreaterThan(24 + 3 * 100);
      // Still exact through a delete of a push task.
      await client.query(`delete from ${schema}.tasks where name = 't1'`);
      const deleted = await counted();
      expect(deleted.counted).toBe(deleted.stored);
    } finally {
      await client.end();
    }
  });
});
