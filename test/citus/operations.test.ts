import { afterEach, describe, expect, it } from 'vitest';
import { openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

describe('on Citus', () => {
  let t: TestService;
  afterEach(async () => t?.close());

  it('adds, leases and deletes', async () => {
    t = await openTestService('postgres', serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    const added = await q.add([{ payload: 'a' }, { payload: 'b', tag: 'x' }]);
    expect(added).toHaveLength(2);
    const leased = await q.leaseTasks({ lease: 60, maxTasks: 10 });
    expect(leased.map((x) => x.payload.toString())).toEqual(['a', 'b']);
    expect(await q.deleteTask(leased)).toEqual([true, true]);
    const stats = await q.fetchStatistics();
    expect(stats.totalTasks).toBe(0);
  });
});
