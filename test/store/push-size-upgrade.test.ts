import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/engine/database.js';
import { migrate } from '../../src/store/migrate/migrate.js';
import { MIGRATIONS } from '../../src/store/migrate/migrations.js';
import { dropSchemas, freshSchema, testPgUrl } from '../helpers/engines.js';

/**
 * sql/0012 rebuilds tasks.size_bytes (of sql/0002) to count push requests: a
 * 0.2.0 schema (0001-0011) upgraded with tasks in it keeps counters equal to
 * the sizes, and they stay exact for the push tasks added afterwards.
 */
describe('upgrading a 0.2.0 schema with tasks to 0012', () => {
  const schema = freshSchema();
  afterAll(async () => dropSchemas(schema));

  it('keeps the storage counters exact through the rebuilt size column', async () => {
    const client = new pg.Client({ connectionString: testPgUrl() });
    await client.connect();
    try {
      // The schema as 0.2.0 left it (0001-0011), applied the way its migrate() applied it.
      await client.query('begin');
      await client.query(`create schema ${schema}`);
      await client.query(`set local search_path to ${schema}`);
      await client.query(
        `create table schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`,
      );
      for (const m of MIGRATIONS.filter((m) => m.version <= 11)) {
        await client.query(m.text);
        await client.query('insert into schema_migrations (version, name) values ($1, $2)', [m.version, m.name]);
      }
      await client.query(`insert into queues (name, mode) values ('h', 'push'), ('p', 'pull')`);
      await client.query(
        `insert into tasks (queue_id, name, eta, payload)
         select q.id, 't' || i, now(), '\\x0102'::bytea from queues q, generate_series(1, 3) i`,
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
          MIGRATIONS.filter((m) => m.version >= 12).map((m) => m.version),
        );
      } finally {
        await database.close();
      }
      expect(await counted()).toEqual({ counted: '24', stored: '24' });
      // A push task added now counts its request.
      await client.query(
        `insert into ${schema}.tasks (queue_id, name, eta, payload, push)
         select id, 'pushed', now(), '\\x0102'::bytea,
                jsonb_build_object('url', '/' || repeat('u', 100), 'method', 'POST', 'headers', '[]'::jsonb)
           from ${schema}.queues where name = 'h'`,
      );
      const after = await counted();
      expect(after.counted).toBe(after.stored);
      expect(Number(after.stored)).toBeGreaterThan(24 + 100);
      // Still exact through a delete of a push task.
      await client.query(`delete from ${schema}.tasks where name = 't1'`);
      const deleted = await counted();
      expect(deleted.counted).toBe(deleted.stored);
    } finally {
      await client.end();
    }
  });
});
