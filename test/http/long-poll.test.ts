import { afterEach, describe, expect, it } from 'vitest';
import { pullQueue } from '../helpers/configs.js';
import { b64, listen, openHarness, queuePath, reply, type Harness, type Loose } from './harness.js';

const lease = `${queuePath()}/tasks/lease`;

describe('long-poll lease (waitSecs)', () => {
  let h: Harness;
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await h.close();
  });

  it('returns a task that arrives during the wait, long before the deadline', async () => {
    h = await openHarness('postgres');
    const start = Date.now();
    const pending = h.call(`${lease}?numTasks=5&leaseSecs=60&waitSecs=20`, { method: 'POST' });
    // Added once the lease waits (its queue marked in queue_waiters), not after a guessed sleep.
    await expect
      .poll(async () => (await h.t.sql(`select 1 from ${h.t.schema}.queue_waiters where until > now()`)).length, {
        interval: 20,
      })
      .toBeGreaterThan(0);
    await h.insert({ id: 'late', payloadBase64: b64('arrived') });
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.json.items.map((t: Loose) => [t.id, t.retry_count])).toEqual([['late', 1]]);
    // Before the 20 s deadline, with room for a busy machine.
    expect(Date.now() - start).toBeLessThan(15_000);
  });

  it('returns no `items` once waitSecs has passed with nothing to lease', async () => {
    h = await openHarness('postgres');
    const start = Date.now();
    const r = await h.call(`${lease}?numTasks=5&leaseSecs=60&waitSecs=1`, { method: 'POST' });
    const elapsed = Date.now() - start;
    expect(r.json).toEqual({ kind: 'taskqueues#tasks' });
    expect(elapsed).toBeGreaterThanOrEqual(950);
    // An upper bound only (a busy machine answers late), far below a wait that ignored waitSecs.
    expect(elapsed).toBeLessThan(15_000);
  });

  it('holds no database connection while waiting: other requests run on a pool of 2', async () => {
    h = await openHarness('postgres', { poolSize: 2 });
    const waiters = Array.from({ length: 6 }, () =>
      h.call(`${lease}?numTasks=1&leaseSecs=60&waitSecs=6&tag=x&groupByTag=true`, { method: 'POST' }),
    );
    let waitersDone = false;
    const all = Promise.all(waiters).finally(() => (waitersDone = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await h.insert({ id: 'other', payloadBase64: '', tag: 'y' });
    expect((await h.call(`${queuePath()}/tasks/other`)).status).toBe(200);
    // Served while the six waiters still wait (a condition, not a clock).
    expect(waitersDone).toBe(false);
    const results = await all;
    expect(results.every((r) => r.status === 200 && r.json.items === undefined)).toBe(true);
  });

  it('keeps to the queue lease rate: every attempt is an ordinary lease', async () => {
    h = await openHarness('postgres', { queues: [pullQueue('q', { leaseRate: { calls: 1, windowSeconds: 3600 } })] });
    await h.insert({ id: 'a', payloadBase64: '' });
    await h.insert({ id: 'b', payloadBase64: '' });
    expect((await h.lease('numTasks=1&leaseSecs=60')).map((t) => t.id)).toEqual(['a']);
    // The one call of this hour is used: a waiting lease gets nothing, though 'b' is available.
    const r = await h.call(`${lease}?numTasks=1&leaseSecs=60&waitSecs=1`, { method: 'POST' });
    expect(r.json.items).toBeUndefined();
  });

  it('stops when the client goes away, so it leases nothing for nobody', async () => {
    h = await openHarness('postgres');
    server = await listen(h.app);
    const controller = new AbortController();
    const pending = fetch(`${server.url}${lease}?numTasks=1&leaseSecs=600&waitSecs=30`, {
      method: 'POST',
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await h.insert({ id: 'after', payloadBase64: '' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const [row] = await h.t.sql<{ retry_count: number }>(
      `select retry_count from ${h.t.schema}.tasks where name = 'after'`,
    );
    expect(row?.retry_count).toBe(0);
    const leased = await reply(await fetch(`${server.url}${lease}?numTasks=1&leaseSecs=60`, { method: 'POST' }));
    expect(leased.json.items.map((t: Loose) => t.id)).toEqual(['after']);
  });
});
