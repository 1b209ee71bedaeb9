import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openHarness, queuePath, type Harness } from './harness.js';
import { operatorOf } from '../helpers/operator-of.js';

const lease = `${queuePath()}/tasks/lease`;

describe('tasks.lease of a paused queue over HTTP', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await openHarness('postgres');
  });
  afterEach(async () => h.close());

  it('answers 200 with no tasks, as App Engine paused pull queues did, and leases again once resumed', async () => {
    await h.insert({ id: 'a', payloadBase64: '' });
    const q = h.t.service.getQueue('q');
    await operatorOf(q).pause();
    const r = await h.call(`${lease}?numTasks=10&leaseSecs=60`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ kind: 'taskqueues#tasks' });
    // Inserts still work while paused.
    await h.insert({ id: 'b', payloadBase64: '' });
    await operatorOf(q).resume();
    expect((await h.lease('numTasks=10&leaseSecs=60')).map((t) => t.id)).toEqual(['a', 'b']);
  });

  it('a long-poll on a paused queue waits, and takes tasks when the queue is resumed during the wait', async () => {
    await h.insert({ id: 'a', payloadBase64: '' });
    const q = h.t.service.getQueue('q');
    await operatorOf(q).pause();
    const empty = await h.call(`${lease}?numTasks=10&leaseSecs=60&waitSecs=1`, { method: 'POST' });
    expect(empty.status).toBe(200);
    expect(empty.json.items).toBeUndefined();

    const pending = h.call(`${lease}?numTasks=10&leaseSecs=60&waitSecs=20`, { method: 'POST' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await operatorOf(q).resume();
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.json.items.map((t: { id: string }) => t.id)).toEqual(['a']);
  });
});
