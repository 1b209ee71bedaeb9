import { afterEach, describe, expect, it } from 'vitest';
import { openTaskQueue, type OpenTaskQueue } from '../../src/open-task-queue.js';
import { openTestService, testPgUrl, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

describe('waiting for tasks across processes (postgres)', () => {
  let t: TestService | undefined;
  let other: OpenTaskQueue | undefined;
  afterEach(async () => {
    await other?.close();
    await t?.close();
  });

  it('wakes a waiter when another server adds a task, well before the fallback probe', async () => {
    const config = serviceConfig([pullQueue('q')]);
    t = await openTestService('postgres', config);
    // A second service with its own pool on the same schema: another server process, as far as the database can tell.
    other = await openTaskQueue({
      config,
      schema: t.schema,
      database: { kind: 'postgres', url: testPgUrl(), poolSize: 2 },
      cleanupIntervalMs: 0,
    });
    const waiting = t.service.getQueue('q');
    // The first wait marks the queue (queue_waiters) and starts listening.
    await waiting.waitForTasks(300);
    const [mark] = await t.sql<{ marked: boolean }>(`select until > now() as marked from ${t.schema}.queue_waiters`);
    expect(mark?.marked).toBe(true);

    const started = performance.now();
    const woken = waiting.waitForTasks(5000).then(() => performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await other.getQueue('q').add({ payload: 'hello' });
    const after = await woken;
    expect(after).toBeLessThan(400);
    expect((await waiting.leaseTasks({ lease: 10, maxTasks: 1 }))[0]?.payload.toString()).toBe('hello');
  });

  it('wakes a waiter when a lease expires, through the probe', async () => {
    t = await openTestService('postgres', serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    await q.add({ name: 'a' });
    await q.leaseTasks({ lease: 600, maxTasks: 1 });
    const woken = q.waitForTasks(5000).then(() => 'woken');
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);
    expect(await woken).toBe('woken');
    expect((await q.leaseTasks({ lease: 10, maxTasks: 1 })).map((x) => x.retryCount)).toEqual([2]);
  });
});
