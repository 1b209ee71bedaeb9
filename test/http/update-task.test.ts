import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { b64, openHarness, queuePath, type Harness, type Loose } from './harness.js';

const tasks = `${queuePath()}/tasks`;

describe('tasks.update, tasks.patch and PUT over HTTP', () => {
  let h: Harness;
  let leased: Loose;
  beforeEach(async () => {
    h = await openHarness('postgres');
    await h.insert({ id: 't', payloadBase64: b64('data'), tag: 'old' });
    [leased] = await h.lease('numTasks=1&leaseSecs=60');
  });
  afterEach(async () => h.close());

  async function stored(): Promise<{ tag: string | null; eta: string; retry_count: number }> {
    const [row] = await h.t.sql<{ tag: string | null; eta: string; retry_count: number }>(
      `select tag, eta::text as eta, retry_count from ${h.t.schema}.tasks where name = 't'`,
    );
    return row as { tag: string | null; eta: string; retry_count: number };
  }

  it('update (POST) renews the lease presented in leaseTimestamp, keeping retry_count', async () => {
    const before = Date.now() * 1000;
    const r = await h.call(`${tasks}/t?newLeaseSeconds=600`, {
      method: 'POST',
      body: { id: 't', queueName: 'q', leaseTimestamp: leased.leaseTimestamp },
    });
    expect(r.status).toBe(200);
    expect(r.json.retry_count).toBe(1);
    expect(r.json.tag).toBe('old');
    expect(r.json.payloadBase64).toBe(b64('data'));
    expect(Math.abs(Number(r.json.leaseTimestamp) - (before + 600e6))).toBeLessThan(30e6);
    // The old token no longer works: the lease moved on.
    const stale = await h.call(`${tasks}/t?newLeaseSeconds=600`, {
      method: 'POST',
      body: { leaseTimestamp: leased.leaseTimestamp },
    });
    expect(stale.status).toBe(400);
    expect(stale.json.error.errors[0].reason).toBe('leaseExpired');
  });

  it('update with a leaseTimestamp that is not the current lease is 400 lease expired and changes nothing', async () => {
    const before = await stored();
    const r = await h.call(`${tasks}/t?newLeaseSeconds=600`, {
      method: 'POST',
      body: { leaseTimestamp: String(Number(leased.leaseTimestamp) - 1), tag: 'new' },
    });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain('expired');
    expect(await stored()).toEqual(before);
  });

  it('without leaseTimestamp, the current lease is the token (what the official client sends)', async () => {
    const r = await h.call(`${tasks}/t?newLeaseSeconds=30`, { method: 'POST', body: { queueName: 'q' } });
    expect(r.status).toBe(200);
    expect(Number(r.json.leaseTimestamp)).toBeLessThan(Number(leased.leaseTimestamp));
  });

  it('without leaseTimestamp, a lease that has expired still fails', async () => {
    await h.t.sql(`update ${h.t.schema}.tasks set eta = now() - interval '1 second' where name = 't'`);
    const r = await h.call(`${tasks}/t?newLeaseSeconds=30`, { method: 'POST', body: {} });
    expect(r.status).toBe(400);
    expect(r.json.error.errors[0].reason).toBe('leaseExpired');
  });

  it('a task that was never leased has no lease to change', async () => {
    await h.insert({ id: 'fresh', payloadBase64: '', leaseTimestamp: String(Date.now() * 1000 + 3600e6) });
    const r = await h.call(`${tasks}/fresh?newLeaseSeconds=30`, { method: 'PATCH', body: {} });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain('not leased');
  });

  it('newLeaseSeconds=0 releases the task at once', async () => {
    const r = await h.call(`${tasks}/t?newLeaseSeconds=0`, {
      method: 'POST',
      body: { leaseTimestamp: leased.leaseTimestamp },
    });
    expect(r.status).toBe(200);
    const again = await h.lease('numTasks=1&leaseSecs=60');
    expect(again.map((t) => [t.id, t.retry_count])).toEqual([['t', 2]]);
  });

  it.each([
    ['no newLeaseSeconds', '', {}, 'newLeaseSeconds'],
    ['newLeaseSeconds out of range', '?newLeaseSeconds=604801', {}, 'newLeaseSeconds'],
    ['newLeaseSeconds not an integer', '?newLeaseSeconds=1.5', {}, 'newLeaseSeconds'],
    ['another id', '?newLeaseSeconds=1', { id: 'other' }, 'id'],
    ['id deleted', '?newLeaseSeconds=1', { id: null }, 'id cannot be deleted'],
    ['another queueName', '?newLeaseSeconds=1', { queueName: 'projects/local/taskqueues/r' }, 'queueName'],
    ['queueName deleted', '?newLeaseSeconds=1', { queueName: null }, 'queueName cannot be deleted'],
    ['leaseTimestamp deleted', '?newLeaseSeconds=1', { leaseTimestamp: null }, 'leaseTimestamp'],
    ['a tag that is not a string', '?newLeaseSeconds=1', { tag: 5 }, 'tag'],
    ['a 501-byte tag', '?newLeaseSeconds=1', { tag: 'x'.repeat(501) }, 'tag'],
  ])('PATCH with %s is 400 and changes nothing', async (_label, query, body, message) => {
    const before = await stored();
    const r = await h.call(`${tasks}/t${query}`, { method: 'PATCH', body });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain(message);
    expect(await stored()).toEqual(before);
  });

  it('PATCH merges: a tag sent is set, a tag left out is kept, null clears it', async () => {
    const set = await h.call(`${tasks}/t?newLeaseSeconds=60`, { method: 'PATCH', body: { tag: 'new' } });
    expect(set.status).toBe(200);
    expect(set.json.tag).toBe('new');
    const kept = await h.call(`${tasks}/t?newLeaseSeconds=60`, { method: 'PATCH', body: {} });
    expect(kept.json.tag).toBe('new');
    const cleared = await h.call(`${tasks}/t?newLeaseSeconds=60`, { method: 'PATCH', body: { tag: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.json.tag).toBeUndefined();
    expect((await stored()).tag).toBeNull();
  });

  it('PATCH ignores server-set and immutable fields, so a leased task can be sent back as it came', async () => {
    const r = await h.call(`${tasks}/t?newLeaseSeconds=60`, {
      method: 'PATCH',
      body: { ...leased, payloadBase64: b64('changed?'), retry_count: 99, enqueueTimestamp: '1', kind: 'x' },
    });
    expect(r.status).toBe(200);
    expect(r.json.payloadBase64).toBe(b64('data'));
    expect(r.json.retry_count).toBe(1);
    expect(r.json.enqueueTimestamp).toBe(leased.enqueueTimestamp);
  });

  it('update, PATCH and PUT refuse a field outside the Task schema with 400 naming it, and change nothing', async () => {
    for (const method of ['POST', 'PATCH', 'PUT']) {
      const r = await h.call(`${tasks}/t?newLeaseSeconds=60`, { method, body: { ...leased, tags: 'x' } });
      expect(r.status).toBe(400);
      expect(r.json.error.errors[0]).toMatchObject({ location: 'tags', message: expect.stringContaining('"tags"') });
    }
    expect((await h.call(`${tasks}/t`)).json.leaseTimestamp).toBe(leased.leaseTimestamp);
  });

  it('PUT replaces: a tag left out is cleared', async () => {
    const r = await h.call(`${tasks}/t?newLeaseSeconds=60`, { method: 'PUT', body: { id: 't' } });
    expect(r.status).toBe(200);
    expect(r.json.tag).toBeUndefined();
    expect((await stored()).tag).toBeNull();
    const missing = await h.call(`${tasks}/t`, { method: 'PUT', body: {} });
    expect(missing.status).toBe(400);
  });

  it('update (POST) leaves the tag alone unless it is sent', async () => {
    const r = await h.call(`${tasks}/t?newLeaseSeconds=60`, { method: 'POST', body: { queueName: 'q' } });
    expect(r.json.tag).toBe('old');
    const cleared = await h.call(`${tasks}/t?newLeaseSeconds=60`, { method: 'POST', body: { tag: null } });
    expect(cleared.json.tag).toBeUndefined();
  });

  it('update and patch of unknown and deleted tasks are 404', async () => {
    expect((await h.call(`${tasks}/nope?newLeaseSeconds=1`, { method: 'PATCH', body: {} })).status).toBe(404);
    expect(
      (await h.call(`${tasks}/nope?newLeaseSeconds=1`, { method: 'POST', body: { leaseTimestamp: '5' } })).status,
    ).toBe(404);
    await h.call(`${tasks}/t`, { method: 'DELETE' });
    const deleted = await h.call(`${tasks}/t?newLeaseSeconds=1`, {
      method: 'POST',
      body: { leaseTimestamp: leased.leaseTimestamp },
    });
    expect(deleted.status).toBe(404);
  });

  it('a task named "lease" is leased by POST .../tasks/lease and updated only by PATCH', async () => {
    await h.insert({ id: 'lease', payloadBase64: '' });
    // POST .../tasks/lease is always the lease method (registered first).
    const viaPost = await h.call(`${tasks}/lease?numTasks=5&leaseSecs=60`, { method: 'POST' });
    expect(viaPost.json.kind).toBe('taskqueues#tasks');
    expect(viaPost.json.items.map((t: Loose) => t.id)).toEqual(['lease']);
    const viaPatch = await h.call(`${tasks}/lease?newLeaseSeconds=120`, {
      method: 'PATCH',
      body: { tag: 'named-lease' },
    });
    expect(viaPatch.status).toBe(200);
    expect(viaPatch.json).toMatchObject({ kind: 'taskqueues#task', id: 'lease', tag: 'named-lease' });
    expect((await h.call(`${tasks}/lease`)).json.id).toBe('lease');
  });
});
