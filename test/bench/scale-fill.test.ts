import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBenchService, type BenchService } from '../../bench/lib/service-bench.js';
import { countersExact } from '../../bench/scale/measure.js';
import { fillTasks } from '../../bench/scale/waiting-curve.js';
import { testPgUrl } from '../helpers/engines.js';

/** The scale curves' SQL fill must leave the schema as real adds would: counters exact, names held, leases in order. */
describe('scale fill of waiting tasks', () => {
  let bench: BenchService;
  beforeAll(async () => {
    bench = await openBenchService(testPgUrl(), 4);
  });
  afterAll(async () => {
    await bench.close();
  });

  it('fills in chunks through the add trigger: counters exact, oldest first, tombstones respected', async () => {
    await fillTasks(bench, 2_500, 1_000);
    const { rows } = await bench.admin.query<{ n: string }>(`select count(*) as n from ${bench.schema}.tasks`);
    expect(Number(rows[0]!.n)).toBe(2_500);
    expect(await countersExact(bench.admin, bench.schema)).toBe(true);

    // Chunks keep the order: the lease takes backlog-1, -2, -3 first, across chunk boundaries too.
    const leased = await bench.queue.leaseTasks({ lease: 60, maxTasks: 3 });
    expect(leased.map((task) => task.name)).toEqual(['backlog-1', 'backlog-2', 'backlog-3']);
    const { rows: order } = await bench.admin.query<{ ok: boolean }>(
      `select bool_and(a.eta < b.eta) as ok from ${bench.schema}.tasks a join ${bench.schema}.tasks b
         on b.name = 'backlog-1001' and a.name = 'backlog-1000'`,
    );
    expect(order[0]!.ok).toBe(true);

    // The add trigger saw the fill: a deleted name is held, so filling it again fails.
    await bench.queue.deleteTask(leased);
    await expect(fillTasks(bench, 1)).rejects.toThrow(/still held/);
    expect(await countersExact(bench.admin, bench.schema)).toBe(true);
  });
});
