import {
  DummyDriver,
  Kysely,
  sql,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
} from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { deleteTasks } from '../../src/store/delete-tasks.js';
import { getTask } from '../../src/store/read-tasks.js';
import { PLANNER_SETTINGS, openDatabase } from '../../src/store/engine/database.js';
import type { Database } from '../../src/store/schema.js';
import type { StoreContext } from '../../src/store/store-context.js';
import { openTestService, testPgUrl, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

/** The statement a store function would send, captured instead of run. */
async function captured(schema: string, run: (ctx: StoreContext) => Promise<unknown>): Promise<CompiledQuery> {
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
  await run({ db, schema }).catch(() => undefined);
  await db.destroy();
  if (!query) throw new Error('no statement was sent');
  return query;
}

/**
 * The service's statements run as named prepared statements, so after a few
 * executions PostgreSQL may run one generic plan for every set of values.
 * Statements that take a list of names must find them through the primary
 * key in that plan too, not read every task of the queue (a delete of 500
 * names took 100-450 ms that way in the REST benchmark), also when the last
 * analyze saw the queue nearly empty (src/store/task-statistics.ts).
 */
describe('generic plans of statements that take names', () => {
  let t: TestService | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const genericPlan = async (query: CompiledQuery): Promise<string> => {
    const client = new pg.Client({
      connectionString: testPgUrl(),
      options: Object.entries(PLANNER_SETTINGS)
        .map(([name, value]) => `-c ${name}=${value}`)
        .join(' '),
    });
    await client.connect();
    try {
      await client.query('begin');
      await client.query('set local plan_cache_mode = force_generic_plan');
      const types = query.parameters.map(() => 'unknown').join(', ');
      await client.query(`prepare probe (${types}) as ${query.sql}`);
      const values = query.parameters
        .map((v) => (Array.isArray(v) ? `'{${v.join(',')}}'` : `'${String(v)}'`))
        .join(', ');
      const rows = (await client.query(`explain execute probe (${values})`)).rows as Array<Record<string, string>>;
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await client.query('rollback').catch(() => undefined);
      await client.end();
    }
  };

  /**
   * A queue whose statistics were taken while it held one task (as after a
   * drained queue refills faster than autovacuum analyzes it), then given
   * `batches` adds of 100 through the service.
   */
  const refilledQueue = async (batches: number): Promise<TestService> => {
    const opened = await openTestService('postgres', serviceConfig([pullQueue('q')]));
    const q = opened.service.getQueue('q');
    await q.add({ name: 'first' });
    await opened.sql(`analyze ${opened.schema}.tasks`);
    for (let i = 0; i < batches; i++) await q.add(Array.from({ length: 100 }, (_, j) => ({ name: `n-${i}-${j}` })));
    return opened;
  };
  const estimatedTasks = async (service: TestService): Promise<number> => {
    const [row] = await service.sql<{ reltuples: number }>(
      `select reltuples::float8 as reltuples from pg_class where oid = '${service.schema}.tasks'::regclass`,
    );
    return Number(row!.reltuples);
  };

  it('deletes, gets and live-name lookups probe the primary key after a queue grows fast', async () => {
    t = await refilledQueue(20);
    // The store compares its exact count with the planner's estimate as the
    // table grows and analyzes it (in the background: wait for it).
    const deadline = Date.now() + 10_000;
    let estimated = await estimatedTasks(t);
    while (estimated <= 1000 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      estimated = await estimatedTasks(t);
    }
    expect(estimated).toBeGreaterThan(1000);
    const names = ['n-1-1', 'n-2-2', 'n-3-3'];
    const ref = { queueId: 1, queueName: 'q' };
    const statements = [
      await captured(t.schema, (ctx) => deleteTasks(ctx, { ...ref, names, heldByForm: names })),
      await captured(t.schema, (ctx) => deleteTasks(ctx, { ...ref, names, heldByForm: [] })),
      await captured(t.schema, (ctx) => getTask(ctx, { ...ref, name: 'n-4-4' })),
    ];
    for (const statement of statements) {
      const plan = await genericPlan(statement);
      expect(plan, plan).toMatch(/tasks_pkey/);
      expect(plan, plan).not.toMatch(/tasks_lease_idx|Seq Scan on tasks/);
    }
  });

  it('leaves a small table to autovacuum', async () => {
    // 901 tasks: under the 1,000 at which the store first compares.
    t = await refilledQueue(9);
    expect(await estimatedTasks(t)).toBe(1);
  });

  it("the service's sessions plan generically from the first call, without JIT", async () => {
    const database = await openDatabase({ kind: 'postgres', url: testPgUrl(), poolSize: 1 });
    try {
      const result = await sql<{
        mode: string;
        jit: string;
        hashjoin: string;
      }>`select current_setting('plan_cache_mode') as mode,
        current_setting('jit') as jit, current_setting('enable_hashjoin') as hashjoin`.execute(database.db);
      expect(result.rows[0]).toEqual({ mode: 'force_generic_plan', jit: 'off', hashjoin: 'off' });
    } finally {
      await database.close();
    }
  });
});
