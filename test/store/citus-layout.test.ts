import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { CITUS_LAYOUT, citusPlacement } from '../../src/store/migrate/citus-layout.js';
import { openDatabase } from '../../src/store/engine/database.js';
import { migrate } from '../../src/store/migrate/migrate.js';
import { droppedAfterAll, testPgUrl } from '../helpers/engines.js';

/**
 * Every table of a fresh schema has its place on Citus in the one list
 * (src/store/migrate/citus-layout.ts): a migration that adds a table adds it
 * there too, and this test says which table is missing. The list's
 * distributed tables are keyed by queue_id, its others are not split.
 */
describe('the Citus layout', () => {
  const schemaName = droppedAfterAll();
  const schema = schemaName();
  const opened = openDatabase({ kind: 'postgres', url: testPgUrl(), poolSize: 1 });
  afterAll(async () => (await opened).close());

  it('places every table of the schema', async () => {
    const { db } = await opened;
    await migrate(db, schema);
    const client = new pg.Client({ connectionString: testPgUrl() });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; has_queue_id: boolean }>(
        `select c.relname as name,
                exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'queue_id' and not a.attisdropped) as has_queue_id
           from pg_class c where c.relnamespace = $1::regnamespace and c.relkind in ('r', 'p') order by 1`,
        [schema],
      );
      const unlisted = rows.map((r) => r.name).filter((name) => !(name in CITUS_LAYOUT));
      expect(unlisted, 'tables missing from CITUS_LAYOUT (src/store/migrate/citus-layout.ts)').toEqual([]);
      for (const row of rows) {
        if (citusPlacement(row.name, row.has_queue_id) === 'distributed')
          expect(row, row.name).toMatchObject({ has_queue_id: true });
      }
      const gone = Object.keys(CITUS_LAYOUT).filter((name) => !rows.some((r) => r.name === name));
      expect(gone, 'CITUS_LAYOUT lists tables the schema no longer has').toEqual([]);
    } finally {
      await client.end();
    }
  });

  it('places an unlisted table by its queue_id column', () => {
    expect(citusPlacement('task_attempts_of_tomorrow', true)).toBe('distributed');
    expect(citusPlacement('settings_of_tomorrow', false)).toBe('coordinator');
  });
});
