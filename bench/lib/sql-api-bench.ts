import pg from 'pg';
import { runAdd, runCycle, type CycleResult } from './cycle.js';
import { benchAdd, benchCycle, openBenchService, preload } from './service-bench.js';

/**
 * The SQL API (docs/sql-api.md) against the in-process API, on the same kind of
 * fresh schema: adds of 100 and of one task, and the lease + delete cycle,
 * through the functions from a plain `pg` pool, as another language's
 * client would call them (named prepared statements, default settings).
 */
const PAYLOAD = Buffer.alloc(64, 'x');

export interface SqlApiFigures {
  readonly service: { add100: number; add1: number; cycle1: CycleResult; cycle100: CycleResult };
  readonly sql: { add100: number; add1: number; cycle1: CycleResult; cycle100: CycleResult };
  /** SQL / service, pair by pair (see benchSqlApiOnce). */
  readonly ratios: { add100: number[]; add1: number[]; cycle1: number[]; cycle100: number[] };
}

export async function benchSqlApiOnce(url: string, quick: boolean): Promise<SqlApiFigures> {
  const addCount = quick ? 5_000 : 20_000;
  const pairs = quick ? 2 : 4;
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
    const sqlAdd1 = () =>
      pool.query({ name: 'sqlapi_add_task', text: `select ${s}.add_task('bench', $1)`, values: [PAYLOAD] });
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

    // Each work is measured in pairs, the two paths back to back, in
    // alternating order (service first, then SQL first, ...): a machine
    // whose speed drifts during a run moves both halves of a pair alike,
    // and the ratio is taken pair by pair (its median across pairs and runs).
    const paired = async <T>(
      service: () => Promise<T>,
      viaSql: () => Promise<T>,
      rate: (result: T) => number,
      before: () => Promise<unknown>,
    ): Promise<{ service: T; sql: T; ratios: number[] }> => {
      const results: { service: T[]; sql: T[] } = { service: [], sql: [] };
      const ratios: number[] = [];
      for (let k = 0; k < pairs; k++) {
        const order: ('service' | 'sql')[] = k % 2 === 0 ? ['service', 'sql'] : ['sql', 'service'];
        for (const path of order) {
          await before();
          results[path].push(await (path === 'service' ? service : viaSql)());
        }
        ratios.push(rate(results.sql[k]!) / rate(results.service[k]!));
      }
      // The pair of the median ratio stands for the run's throughput figures.
      const middle = ratios.indexOf([...ratios].sort((x, y) => x - y)[Math.floor((ratios.length - 1) / 2)]!);
      return { service: results.service[middle]!, sql: results.sql[middle]!, ratios };
    };
    const same = (x: number) => x;
    const add100 = await paired(
      () => benchAdd(bench.queue, addCount, 4),
      () => runAdd(addCount, 4, sqlAdd),
      same,
      drain,
    );
    const add1 = await paired(
      () => runAdd(addCount / 4, 4, () => bench.queue.add({ payload: PAYLOAD }), 1),
      () => runAdd(addCount / 4, 4, sqlAdd1, 1),
      same,
      drain,
    );
    const cycleRate = (r: CycleResult) => r.tasksPerSecond;
    const cycle1 = await paired(
      () => benchCycle(bench.queue, cycle1Count, 1, 4),
      () => sqlCycle(cycle1Count, 1, 4),
      cycleRate,
      async () => {
        await drain();
        await preload(bench.queue, cycle1Count);
      },
    );
    const cycle100 = await paired(
      () => benchCycle(bench.queue, cycle100Count, 100, 4),
      () => sqlCycle(cycle100Count, 100, 4),
      cycleRate,
      async () => {
        await drain();
        await preload(bench.queue, cycle100Count);
      },
    );
    const service = { add100: add100.service, add1: add1.service, cycle1: cycle1.service, cycle100: cycle100.service };
    const viaSql = { add100: add100.sql, add1: add1.sql, cycle1: cycle1.sql, cycle100: cycle100.sql };
    const ratios = { add100: add100.ratios, add1: add1.ratios, cycle1: cycle1.ratios, cycle100: cycle100.ratios };
    return { service, sql: viaSql, ratios };
  } finally {
    await pool.end();
    await bench.close();
  }
}
