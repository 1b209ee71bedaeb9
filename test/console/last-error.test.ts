import { afterEach, describe, expect, it } from 'vitest';
import { openConsoleHarness, type ConsoleHarness } from './console-harness.js';

describe('the console shows last errors (postgres)', () => {
  let h: ConsoleHarness;
  afterEach(async () => h?.close());

  it('of tasks and of dead letters', async () => {
    h = await openConsoleHarness('postgres', { auth: false });
    const page = async (path: string) =>
      (
        await h.app.request(`http://localhost/console/queues/${path}`, {
          headers: { host: 'localhost', 'sec-fetch-site': 'same-origin' },
        })
      ).text();
    const jobs = h.t.service.getQueue('jobs');
    await jobs.add({ name: 'mail-1' });
    const [task] = await jobs.leaseTasks({ lease: 60, maxTasks: 1 });
    await jobs.failTask(task!, new Error('smtp said <no>'));
    expect(await page('jobs')).toContain('smtp said &lt;no&gt;');
    expect(await page('jobs/tasks/mail-1')).toContain('smtp said &lt;no&gt;');

    const reports = h.t.service.getQueue('reports'); // retry limit 1
    await reports.add({ name: 'report-1' });
    const [report] = await reports.leaseTasks({ lease: 60, maxTasks: 1 });
    await reports.failTask(report!, 'renderer crashed');
    await h.t.sql(`update ${h.t.schema}.tasks set eta = now()`);
    expect(await reports.leaseTasks({ lease: 60, maxTasks: 1 })).toEqual([]);
    expect(await page('reports/dead-letters')).toContain('renderer crashed');
  });
});
