import pg from 'pg';
import { runAdd, runCycle, type CycleResult } from './cycle.js';
import { benchAdd, benchCycle, openBenchService, preload } from './service-bench.js';

/**
 * The SQL API (sql/0015) against the in-process API, on the same kind of
 * fresh schema: adds of 100 and of one task, and the lease + delete cycle,
 * through the functions from a plain `pg` pool, as another language's
 * client would call them (named prepared statements, default settings).
 */
const PAYLOAD = Buffer.alloc(64, 'x');

export interface SqlApiFigures {
  readonly service: { add100: number; add1: number; cycle1: CycleResult; cycle100: CycleResult };
  readonly sql: { add100: number; add1: number; cycle1: CycleResult; cycle100: CycleResult };
}

export async function benchSqlApiOnce(url: string, quick: boolean): Promise<SqlApiFigures> {
  const addCount = quick ? 5_000 : 20_000;
  const cycle1Count = quick ? 1_000 : 4_000;
  const cycle100Count = quick ? 10_000 : 40_000;
  const bench = await openBenchService(url, 10);
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const s = bench.schema;
  try {
    const sqlAdd = (n: number) =>
      pool.query({
        name: 'sqlapi_add_tasks',
        text: `select ${s}.add_tasks('bench', $1::bytea[])`,
        values: [Array.from({ length: n }, () => PAYLOAD)],
      });
    const sqlAdd1 = () => pool.query({ name: 'sqlapi_add_task', text: `select ${s}.add_task('bench', $1)`, values: [PAYLOAD] });
    const sqlCycle = (count: number, numTasks: number, consumers: number) =>
      runCycle<string>(
        {
          lease: async (want) =>
            (
              await pool.query<{ name: string }>({
                name: 'sqlapi_lease',
                text: `select name from ${s}.lease_tasks('bench', $1, 300)`,
                values: [want],
              })
            ).rows.map((row) => row.name),
          complete: async (names) => {
            await pool.query({
              name: 'sqlapi_delete',
              text: `select ${s}.delete_tasks('bench', $1::text[])`,
              values: [names],
            });
          },
        },
        count,
        numTasks,
        consumers,
      );
    const drain = () => bench.admin.query(`delete from ${s}.tasks`);

    // Warm both paths (plans, caches, the pools' connections) before measuring either.
    await benchAdd(bench.queue, 2_000, 4);
    await runAdd(2_000, 4, sqlAdd);
    await benchCycle(bench.queue, 1_000, 100, 4);
    await sqlCycle(1_000, 100, 4);
    await benchCycle(bench.queue, 200, 1, 4);
    await sqlCycle(200, 1, 4);
    await drain();

    const service = {
      add100: await benchAdd(bench.queue, addCount, 4),
      add1: await runAdd(addCount / 4, 4, () => bench.queue.add({ payload: PAYLOAD }), 1),
      cycle1: { tasksPerSecond: 0, leaseP50Ms: 0, leaseP99Ms: 0 },
      cycle100: { tasksPerSecond: 0, leaseP50Ms: 0, leaseP99Ms: 0 },
    };
    await drain();
    const viaSql = {
      add100: await runAdd(addCount, 4, sqlAdd),
      add1: await runAdd(addCount / 4, 4, sqlAdd1, 1),
      cycle1: { tasksPerSecond: 0, leaseP50Ms: 0, leaseP99Ms: 0 },
      cycle100: { tasksPerSecond: 0, leaseP50Ms: 0, leaseP99Ms: 0 },
    };
    await drain();
    await preload(bench.queue, cycle1Count);
    service.cycle1 = await benchCycle(bench.queue, cycle1Count, 1, 4);
    await drain();
    await preload(bench.queue, cycle1Count);
    viaSql.cycle1 = await sqlCycle(cycle1Count, 1, 4);
    await drain();
    await preload(bench.queue, cycle100Count);
    service.cycle100 = await benchCycle(bench.queue, cycle100Count, 100, 4);
    await drain();
    await preload(bench.queue, cycle100Count);
    viaSql.cycle100 = await sqlCycle(cycle100Count, 100, 4);
    return { service, sql: viaSql };
  } finally {
    await pool.end();
    await bench.close();
  }
}
