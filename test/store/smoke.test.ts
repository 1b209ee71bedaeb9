import { afterEach, describe, expect, it } from 'vitest';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

describe.each(ENGINES)('smoke on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  it('adds, leases and deletes', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    const added = await q.add([{ payload: 'a' }, { payload: 'b', tag: 'x' }]);
    expect(added).toHaveLength(2);
    const leased = await q.leaseTasks({ lease: 60, maxTasks: 10 });
    expect(leased.map((x) => x.payload.toString())).toEqual(['a', 'b']);
    expect(leased.every((x) => x.retryCount === 1)).toBe(true);
    expect(await q.deleteTask(leased)).toEqual([true, true]);
    expect(await q.leaseTasks({ lease: 60, maxTasks: 10 })).toEqual([]);
    const stats = await q.fetchStatistics();
    expect(stats.totalTasks).toBe(0);
    expect(stats.leasedLastMinute).toBe(2);
  });
});
