import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { b64, openHarness, queuePath, unb64, type Harness, type Loose } from './harness.js';

const lease = `${queuePath()}/tasks/lease`;

describe('tasks.lease over HTTP', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await openHarness('postgres');
  });
  afterEach(async () => h.close());

  it('answers without `items` when nothing can be leased', async () => {
    const r = await h.call(`${lease}?numTasks=10&leaseSecs=60`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ kind: 'taskqueues#tasks' });
  });

  it('leases the oldest tasks for leaseSecs, counting the lease in retry_count', async () => {
    for (const id of ['a', 'b', 'c']) await h.insert({ id, payloadBase64: b64(`p-${id}`) });
    const before = Date.now() * 1000;
    const r = await h.call(`${lease}?numTasks=2&leaseSecs=300`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('taskqueues#tasks');
    expect(r.json.items.map((t: Loose) => [t.id, unb64(t.payloadBase64), t.retry_count])).toEqual([
      ['a', 'p-a', 1],
      ['b', 'p-b', 1],
    ]);
    const expiry = Number(r.json.items[0].leaseTimestamp);
    expect(Math.abs(expiry - (before + 300e6))).toBeLessThan(30e6);
    expect(r.json.items[0].queueName).toBe('projects/local/taskqueues/q');
    expect((await h.lease('numTasks=10&leaseSecs=60')).map((t) => t.id)).toEqual(['c']);
  });

  it('accepts lease_secs, the spelling of the App Engine docs, but not both spellings', async () => {
    await h.insert({ id: 'a', payloadBase64: '' });
    expect((await h.lease('numTasks=1&lease_secs=60')).map((t) => t.id)).toEqual(['a']);
    const both = await h.call(`${lease}?numTasks=1&lease_secs=60&leaseSecs=60`, { method: 'POST' });
    expect(both.status).toBe(400);
  });

  it('takes the parameters from a form body too (hawkeye sends them so)', async () => {
    await h.insert({ id: 'a', payloadBase64: '' });
    const r = await h.call(lease, {
      method: 'POST',
      body: 'leaseSecs=60&numTasks=1000',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(200);
    expect(r.json.items.map((t: Loose) => t.id)).toEqual(['a']);
    const twice = await h.call(`${lease}?numTasks=1`, {
      method: 'POST',
      body: 'leaseSecs=60&numTasks=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(twice.status).toBe(400);
    expect(twice.json.error.message).toContain('numTasks');
    const text = await h.call(`${lease}?numTasks=1&leaseSecs=1`, {
      method: 'POST',
      body: 'numTasks=1',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(400);
  });

  it('takes a JSON body: empty, or carrying the parameters under either spelling, the query string winning', async () => {
    for (const id of ['a', 'b', 'c', 'd', 'e']) await h.insert({ id, payloadBase64: '', tag: id === 'e' ? 'x' : null });
    // What early discovery-based clients send with every POST.
    const empty = await h.call(`${lease}?numTasks=1&leaseSecs=60`, { method: 'POST', body: {} });
    expect(empty.status).toBe(200);
    expect(empty.json.items.map((t: Loose) => t.id)).toEqual(['a']);
    const inBody = await h.call(lease, { method: 'POST', body: { numTasks: 1, leaseSecs: 60 } });
    expect(inBody.json.items.map((t: Loose) => [t.id, t.retry_count])).toEqual([['b', 1]]);
    const snake = await h.call(lease, {
      method: 'POST',
      body: { num_tasks: '1', lease_secs: 60, group_by_tag: true, tag: 'x' },
    });
    expect(snake.json.items.map((t: Loose) => t.id)).toEqual(['e']);
    // The query string wins: one task, a 600 s lease (the body's 1 s is ignored).
    const before = Date.now() * 1000;
    const conflict = await h.call(`${lease}?numTasks=1&lease_secs=600`, {
      method: 'POST',
      body: { numTasks: 3, leaseSecs: 1, waitSecs: 0 },
    });
    expect(conflict.json.items.map((t: Loose) => t.id)).toEqual(['c']);
    expect(Number(conflict.json.items[0].leaseTimestamp)).toBeGreaterThan(before + 500e6);
    // The body's values get the query string's checks, and its mistakes are named.
    for (const [body, field] of [
      [{ numTasks: 0, leaseSecs: 60 }, 'numTasks'],
      [{ numTasks: 1.5, leaseSecs: 60 }, 'numTasks'],
      [{ numTasks: 1, leaseSecs: 60, groupByTag: 'yes' }, 'groupByTag'],
      [{ numTasks: 1, leaseSecs: 60, lease_seconds: 5 }, 'lease_seconds'],
      [{ numTasks: 1, leaseSecs: 60, lease_secs: 60 }, 'lease_secs'],
      [{ numTasks: [1], leaseSecs: 60 }, 'numTasks'],
      [{ numTasks: 1 }, 'leaseSecs'],
      // Names Object.prototype has are no lease parameters either (they answered 500).
      [{ numTasks: 1, leaseSecs: 60, constructor: {} }, 'constructor'],
      [{ numTasks: 1, leaseSecs: 60, toString: 1 }, 'toString'],
    ] as const) {
      const r = await h.call(lease, { method: 'POST', body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.error.errors[0].location, JSON.stringify(body)).toBe(field);
    }
    expect(
      (await h.call(lease, { method: 'POST', body: '[1]', headers: { 'content-type': 'application/json' } })).status,
    ).toBe(400);
    expect(
      (await h.call(lease, { method: 'POST', body: '{"numTasks":', headers: { 'content-type': 'application/json' } }))
        .status,
    ).toBe(400);
    const proto = await h.call(lease, {
      method: 'POST',
      body: '{"numTasks":1,"leaseSecs":60,"__proto__":{}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(proto.status).toBe(400);
    expect(proto.json.error.errors[0].location).toBe('__proto__');
    expect((await h.lease('numTasks=10&leaseSecs=60')).map((t) => t.id)).toEqual(['d']);
  });

  it.each([
    ['numTasks=10', 'leaseSecs', 'required'],
    ['leaseSecs=10', 'numTasks', 'required'],
    ['numTasks=10abc&leaseSecs=1', 'numTasks', 'invalidParameter'],
    ['numTasks=0x10&leaseSecs=1', 'numTasks', 'invalidParameter'],
    ['numTasks=&leaseSecs=1', 'numTasks', 'invalidParameter'],
    ['numTasks=1.5&leaseSecs=1', 'numTasks', 'invalidParameter'],
    ['numTasks=1e3&leaseSecs=1', 'numTasks', 'invalidParameter'],
    ['numTasks=-1&leaseSecs=1', 'numTasks', 'invalidParameter'],
    ['numTasks=0&leaseSecs=1', 'numTasks', 'invalidParameter'],
    ['numTasks=1001&leaseSecs=1', 'numTasks', 'invalidParameter'],
    ['numTasks=1&leaseSecs=604801', 'leaseSecs', 'invalidParameter'],
    ['numTasks=1&leaseSecs=-5', 'leaseSecs', 'invalidParameter'],
    ['numTasks=1&numTasks=2&leaseSecs=1', 'numTasks', 'invalidParameter'],
    ['numTasks=1&leaseSecs=1&groupByTag=yes', 'groupByTag', 'invalidParameter'],
    ['numTasks=1&leaseSecs=1&tag=x', 'tag', 'invalidParameter'],
    ['numTasks=1&leaseSecs=1&groupByTag=false&tag=x', 'tag', 'invalidParameter'],
    ['numTasks=1&leaseSecs=1&waitSecs=61', 'waitSecs', 'invalidParameter'],
  ])('refuses ?%s with a 400 naming %s', async (query, parameter, reason) => {
    await h.insert({ id: 'a', payloadBase64: '' });
    const r = await h.call(`${lease}?${query}`, { method: 'POST' });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain(parameter);
    expect(r.json.error.errors[0]).toMatchObject({ reason, locationType: 'parameter', location: parameter });
    // Nothing was leased.
    expect((await h.lease('numTasks=1&leaseSecs=60')).map((t) => t.id)).toEqual(['a']);
  });

  it('accepts the extreme values of the ranges', async () => {
    await h.insert({ id: 'a', payloadBase64: '' });
    expect((await h.lease('numTasks=1000&leaseSecs=604800')).map((t) => t.id)).toEqual(['a']);
    expect(await h.lease('numTasks=1&leaseSecs=0')).toEqual([]);
  });

  it('parses groupByTag for real and leases by tag', async () => {
    await h.insert({ id: 'o1', payloadBase64: '', tag: 'oldest', leaseTimestamp: 1 });
    await h.insert({ id: 'n1', payloadBase64: '', tag: 'newest', leaseTimestamp: 2 });
    await h.insert({ id: 'o2', payloadBase64: '', tag: 'oldest', leaseTimestamp: 3 });
    expect((await h.lease('numTasks=10&leaseSecs=60&groupByTag=true&tag=newest')).map((t) => t.id)).toEqual(['n1']);
    expect((await h.lease('numTasks=10&leaseSecs=60&groupByTag=true')).map((t) => t.id)).toEqual(['o1', 'o2']);
    await h.insert({ id: 'u', payloadBase64: '' });
    await h.insert({ id: 'v', payloadBase64: '', tag: 't' });
    // "false" is false: no grouping, so both come back.
    expect((await h.lease('numTasks=10&leaseSecs=60&groupByTag=false')).map((t) => t.id).sort()).toEqual(['u', 'v']);
  });

  it('returns at most 1 MB of payload; the rest stays available', async () => {
    const payload = Buffer.alloc(700 * 1024, 1).toString('base64');
    await h.insert({ id: 'big1', payloadBase64: payload, leaseTimestamp: 1 });
    await h.insert({ id: 'big2', payloadBase64: payload, leaseTimestamp: 2 });
    expect((await h.lease('numTasks=2&leaseSecs=60')).map((t) => t.id)).toEqual(['big1']);
    expect((await h.lease('numTasks=2&leaseSecs=60')).map((t) => t.id)).toEqual(['big2']);
  });

  it('leases on a push queue are 400', async () => {
    const r = await h.call(`${queuePath('default')}/tasks/lease?numTasks=1&leaseSecs=1`, { method: 'POST' });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain('push queue');
  });
});
