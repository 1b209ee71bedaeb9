import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { ENGINES, openTestService, testPGlite, testPgUrl, type TestService } from '../helpers/engines.js';

/**
 * The trigger example of docs/sql-api.md, run as written (only the schema
 * name changed to the test's): a task for every new order, in the
 * order's own transaction.
 */
const DOC = readFileSync(new URL('../../docs/sql-api.md', import.meta.url), 'utf8');
const EXAMPLE = /<!-- trigger-example -->\s*```sql\n([\s\S]*?)```/.exec(DOC)?.[1];

/** A session of its own on either engine, for multi-statement SQL with a search_path. */
interface Session {
  exec(text: string): Promise<void>;
  query<R>(text: string): Promise<R[]>;
  close(): Promise<void>;
}

async function session(engine: (typeof ENGINES)[number]): Promise<Session> {
  if (engine === 'pglite') {
    const instance = await testPGlite();
    return {
      exec: async (text) => void (await instance.exec(text)),
      query: async <R>(text: string) => (await instance.query<R>(text)).rows,
      close: async () => void (await instance.exec('reset search_path')),
    };
  }
  const client = new pg.Client({ connectionString: testPgUrl() });
  await client.connect();
  return {
    exec: async (text) => void (await client.query(text)),
    query: async <R>(text: string) => (await client.query(text)).rows as R[],
    close: () => client.end(),
  };
}

describe.each(ENGINES)('the trigger example of docs/sql-api.md (%s)', (engine) => {
  let t: TestService;
  let s: Session;
  let app: string;
  beforeAll(async () => {
    expect(EXAMPLE, 'docs/sql-api.md has a trigger example').toBeDefined();
    t = await openTestService(engine, serviceConfig([pullQueue('emails')]));
    app = `${t.schema}_app`;
    s = await session(engine);
    await s.exec(
      `create schema ${app}; set search_path to ${app}; ${EXAMPLE!.replaceAll('taskqueue.', `${t.schema}.`)}`,
    );
  });
  afterAll(async () => {
    await s.exec(`drop schema ${app} cascade`);
    await s.close();
    await t.close();
  });

  it('adds a task for each order committed, none for one rolled back; a broken rule fails the insert', async () => {
    await s.exec(`insert into orders values (1, 'ada'), (2, 'bob')`);
    await s.exec(`begin; insert into orders values (3, 'cy'); rollback`);
    const queue = t.service.getQueue('emails');
    const leased = await queue.leaseTasks({ maxTasks: 10, lease: 60 });
    expect(leased.map((task) => [task.name, JSON.parse(task.payload.toString('utf8'))])).toEqual([
      ['order-1', { order: 1, customer: 'ada' }],
      ['order-2', { order: 2, customer: 'bob' }],
    ]);
    await queue.deleteTask(leased);

    // Order 1 again: its task's name is still held, so the insert fails and no order is stored.
    await s.exec('delete from orders where id = 1');
    const failure = await s
      .exec(`insert into orders values (1, 'ada again')`)
      .catch((error: { code?: string }) => error.code);
    expect(failure).toBe('TQ001');
    expect(await s.query(`select id from orders order by id`)).toEqual([{ id: engine === 'pglite' ? 2 : '2' }]);
  });
});
