import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
} from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskSearchParams } from '../../src/core/task-store.js';
import { PLANNER_SETTINGS } from '../../src/store/engine/database.js';
import { searchTasks } from '../../src/store/search-tasks.js';
import type { Database } from '../../src/store/schema.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { openTestService, testPgUrl, type TestService } from '../helpers/engines.js';

/** The statement searchTasks would send, captured instead of run. */
async function captured(schema: string, params: TaskSearchParams): Promise<CompiledQuery> {
  let query: CompiledQuery | undefined;
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => {
      query ??= event.query;
    },
  });
  await searchTasks({ db, schema }, params).catch(() => undefined);
  await db.destroy();
  if (!query) throw new Error('no statement was sent');
  return query;
}

/**
 * The search's one statement, in the generic plan the service's sessions
 * run: each walk is an index's range (never a scan of the queue), and no
 * Sort sits above the window, which would read every candidate before the
 * first row of the page (the bench's 1M point went from 100 ms to 0.6 ms
 * per tag search when one went).
 */
describe('generic plans of search_tasks', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await openTestService('postgres', serviceConfig([pullQueue('q')]));
    await t.sql(
      `insert into ${t.schema}.tasks (queue_id, name, eta, tag, payload)
       select q.id, 'task-' || g, now() - interval '1 day' + g * interval '1 ms', 'tag-' || (g % 100), '\\x7b7d'::bytea
         from ${t.schema}.queues q, generate_series(1, 20000) g where q.name = 'q'`,
    );
    await t.sql(`analyze ${t.schema}.tasks`);
  });
  afterAll(async () => t?.close());

  const plan = async (params: Partial<TaskSearchParams>): Promise<string> => {
    const [queue] = await t.sql<{ id: number }>(`select id from ${t.schema}.queues where name = 'q'`);
    const query = await captured(t.schema, {
      queueId: queue!.id,
      queueName: 'q',
      walk: 'eta',
      limit: 50,
      scanLimit: 10_000,
      ...params,
    });
    const client = new pg.Client({
      connectionString: testPgUrl(),
      options: Object.entries(PLANNER_SETTINGS)
        .map(([name, value]) => `-c ${name}=${value}`)
        .join(' '),
    });
    await client.connect();
    try {
      await client.query(`prepare probe as ${query.sql}`);
      const values = query.parameters
        .map((v) => (Buffer.isBuffer(v) ? `'\\x${v.toString('hex')}'::bytea` : `'${String(v)}'`))
        .join(', ');
      const rows = (await client.query(`explain execute probe (${values})`)).rows as Array<Record<string, string>>;
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await client.end();
    }
  };

  it.each([
    ['a name prefix', { walk: 'name', namePrefix: 'task-12' }, 'tasks_pkey'],
    ['a tag', { walk: 'tag', tag: 'tag-7' }, 'tasks_tag_lease_idx'],
    ['a tag prefix', { walk: 'tag', tagPrefix: 'tag-1' }, 'tasks_tag_lease_idx'],
    ['error text', { walk: 'eta', errorText: 'disk' }, 'tasks_lease_idx'],
    [
      'payload text, from a cursor',
      { walk: 'eta', payloadText: '{', after: { etaUsec: 1, name: 'a', tag: null } },
      'tasks_lease_idx',
    ],
    ['a state, with a tag prefix', { walk: 'tag', tagPrefix: 'tag-1', state: 'failing' }, 'tasks_tag_lease_idx'],
  ] as const)('%s walks %s and streams', async (_what, params, index) => {
    const text = await plan(params as Partial<TaskSearchParams>);
    expect(text, text).toContain(`Index Scan using ${index} on tasks`);
    expect(text, text).not.toMatch(/Seq Scan/);
    expect(text, text).not.toMatch(/(^|->\s+)Sort\b/m);
  });
});
