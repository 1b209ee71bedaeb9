import { readFileSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { usePushFixture } from '../push/push-fixture.js';
import { ENGINES, testPGlite, testPgUrl, type TestEngine } from '../helpers/engines.js';
import { pushQueue } from '../helpers/push-sink.js';

/**
 * The push example of docs/sql-api.md, run as written (only the schema
 * name changed to the test's): the order and its push task in one
 * transaction, delivered by the dispatcher once it commits, gone with it
 * when it rolls back.
 */
const DOC = readFileSync(new URL('../../docs/sql-api.md', import.meta.url), 'utf8');
const EXAMPLE = /<!-- push-example -->\s*```sql\n([\s\S]*?)```/.exec(DOC)?.[1];

/** Runs multi-statement SQL on a session of its own (PostgreSQL) or on the file's PGlite. */
async function run(engine: TestEngine, text: string): Promise<void> {
  if (engine === 'pglite') {
    await (await testPGlite()).exec(text);
    return;
  }
  const client = new pg.Client({ connectionString: testPgUrl() });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

describe.each(ENGINES)('the push example of docs/sql-api.md (%s)', (engine) => {
  const fixture = usePushFixture();

  it('stores the order and its task together; the dispatcher delivers the request; a rollback leaves neither', async () => {
    expect(EXAMPLE, 'docs/sql-api.md has a push example').toBeDefined();
    const { t, sink } = await fixture.start(engine, { queues: (url) => [pushQueue('webhooks', url)] });
    const app = `${t.schema}_app`;
    const example = EXAMPLE!
      .replaceAll('taskqueue.', `${t.schema}.`)
      .replaceAll('INSERT INTO orders', `INSERT INTO ${app}.orders`);
    await run(
      engine,
      `create schema ${app}; create table ${app}.orders (id bigint primary key, customer text not null)`,
    );
    try {
      await run(engine, example.replace('COMMIT;', 'ROLLBACK;'));
      expect(await t.sql(`select id from ${app}.orders`)).toEqual([]);
      expect(await t.sql(`select name from ${t.schema}.tasks`)).toEqual([]);

      await run(engine, example);
      await sink.waitFor(1);
      const request = sink.requests[0]!;
      expect(request).toMatchObject({ method: 'PUT', url: '/hooks/order?id=42' });
      expect(JSON.parse(request.body.toString('utf8'))).toEqual({ order: 42 });
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers.authorization).toBe('Bearer s3cret');
      expect(request.headers['x-appengine-queuename']).toBe('webhooks');
      expect(sink.requests).toHaveLength(1);
    } finally {
      await run(engine, `drop schema ${app} cascade`);
    }
  });
});
