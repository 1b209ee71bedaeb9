import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64, openHarness, queuePath, unb64, type Harness, type Loose } from './harness.js';

const tasks = `${queuePath()}/tasks`;

/** Every method once on the embedded engine (the other HTTP tests run on PostgreSQL). */
describe('the REST methods on pglite', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness('pglite');
  });
  afterAll(async () => h.close());

  it('insert, get, list, lease, update, patch, put, delete and taskqueues.get', async () => {
    const inserted = await h.call(tasks, {
      method: 'POST',
      body: { id: 'p1', payloadBase64: b64('on pglite'), tag: 't' },
    });
    expect(inserted.status).toBe(200);
    expect(inserted.json.queueName).toBe('projects/local/taskqueues/q');

    expect(unb64((await h.call(`${tasks}/p1`)).json.payloadBase64)).toBe('on pglite');
    expect((await h.call(tasks)).json.items.map((t: Loose) => t.id)).toEqual(['p1']);

    const leased = await h.call(`${tasks}/lease?numTasks=5&leaseSecs=60&groupByTag=true`, { method: 'POST' });
    expect(leased.json.items.map((t: Loose) => [t.id, t.retry_count])).toEqual([['p1', 1]]);

    const updated = await h.call(`${tasks}/p1?newLeaseSeconds=120`, {
      method: 'POST',
      body: { id: 'p1', leaseTimestamp: leased.json.items[0].leaseTimestamp },
    });
    expect(updated.status).toBe(200);
    const stale = await h.call(`${tasks}/p1?newLeaseSeconds=120`, {
      method: 'POST',
      body: { leaseTimestamp: leased.json.items[0].leaseTimestamp },
    });
    expect(stale.status).toBe(400);

    const patched = await h.call(`${tasks}/p1?newLeaseSeconds=60`, { method: 'PATCH', body: { tag: 'u' } });
    expect(patched.json.tag).toBe('u');
    const replaced = await h.call(`${tasks}/p1?newLeaseSeconds=60`, { method: 'PUT', body: {} });
    expect(replaced.json.tag).toBeUndefined();

    const queue = await h.call(`${queuePath()}?getStats=true`);
    expect(queue.json).toMatchObject({
      kind: 'taskqueues#taskqueue',
      id: 'q',
      stats: { totalTasks: 1, leasedLastMinute: '1' },
    });

    expect((await h.call(`${tasks}/p1`, { method: 'DELETE' })).status).toBe(200);
    expect((await h.call(`${tasks}/p1`, { method: 'DELETE' })).status).toBe(404);
    expect((await h.call(tasks, { method: 'POST', body: { id: 'p1', payloadBase64: '' } })).status).toBe(409);
  });

  it('long-polls on pglite too', async () => {
    const pending = h.call(`${tasks}/lease?numTasks=1&leaseSecs=60&waitSecs=10`, { method: 'POST' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await h.call(tasks, { method: 'POST', body: { id: 'late', payloadBase64: '' } });
    expect((await pending).json.items.map((t: Loose) => t.id)).toEqual(['late']);
  });

  it('reports the engine in /healthz', async () => {
    expect((await h.call('/healthz')).json).toEqual({ status: 'ok', engine: 'pglite' });
  });
});
