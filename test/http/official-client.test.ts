import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessControl, QueueAction, RequestCredentials } from '../../src/auth/access-control.js';
import { listen, openHarness, type Harness, type Loose } from './harness.js';

/** googleapis@29.0.0, the newest release that ships taskqueue v1beta2 (CommonJS). */
const { google } = createRequire(import.meta.url)('googleapis') as { google: Loose };

/** Lets everything through, remembering what each request presented. */
function recordingAccess(seen: { credentials: RequestCredentials; action: QueueAction }[]): AccessControl {
  return {
    async check(credentials, _queue, action) {
      seen.push({ credentials, action });
      return { principal: null, mayReadAcl: true };
    },
  };
}

describe('the official Node client, googleapis@29.0.0, unchanged', () => {
  let h: Harness;
  let server: Awaited<ReturnType<typeof listen>>;
  let tq: Loose;
  let o: { rootUrl: string };
  const seen: { credentials: RequestCredentials; action: QueueAction }[] = [];
  const project = 's~local';
  const taskqueue = 'q';

  beforeAll(async () => {
    h = await openHarness('postgres', { accessControl: recordingAccess(seen) });
    server = await listen(h.app);
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: 'dev-token' });
    tq = google.taskqueue({ version: 'v1beta2', auth });
    // v27-v29 honour rootUrl only in the per-call options argument (reference section 2).
    o = { rootUrl: `${server.url}/` };
  });
  afterAll(async () => {
    await server.close();
    await h.close();
  });

  it('drives all eight methods', async () => {
    const payload = Buffer.from('hello from googleapis').toString('base64').replace(/\+/g, '-').replace(/\//g, '_');

    const inserted = await tq.tasks.insert(
      { project, taskqueue, resource: { queueName: taskqueue, payloadBase64: payload, tag: 'x' } },
      o,
    );
    expect(inserted.status).toBe(200);
    expect(inserted.data).toMatchObject({
      kind: 'taskqueues#task',
      queueName: 'projects/local/taskqueues/q',
      tag: 'x',
      retry_count: 0,
    });
    const id: string = inserted.data.id;
    await tq.tasks.insert({ project, taskqueue, resource: { id: 'second', payloadBase64: '', tag: 'y' } }, o);

    const queue = await tq.taskqueues.get({ project, taskqueue, getStats: true }, o);
    // maxLeases is always there: 0 for a queue without a retry limit.
    expect(queue.data).toMatchObject({ kind: 'taskqueues#taskqueue', id: 'q', maxLeases: 0, stats: { totalTasks: 2 } });

    const listed = await tq.tasks.list({ project, taskqueue }, o);
    expect(listed.data.items.map((t: Loose) => t.id).sort()).toEqual([id, 'second'].sort());
    expect(listed.data.items.every((t: Loose) => t.payloadBase64 === undefined)).toBe(true);

    const got = await tq.tasks.get({ project, taskqueue, task: id }, o);
    expect(Buffer.from(got.data.payloadBase64, 'base64').toString()).toBe('hello from googleapis');

    const leased = await tq.tasks.lease(
      { project, taskqueue, numTasks: 10, leaseSecs: 60, groupByTag: true, tag: 'x' },
      o,
    );
    expect(leased.data.kind).toBe('taskqueues#tasks');
    expect(leased.data.items.map((t: Loose) => [t.id, t.retry_count])).toEqual([[id, 1]]);
    const task = leased.data.items[0];

    const updated = await tq.tasks.update(
      {
        project,
        taskqueue,
        task: id,
        newLeaseSeconds: 120,
        resource: { id, queueName: taskqueue, leaseTimestamp: task.leaseTimestamp },
      },
      o,
    );
    expect(Number(updated.data.leaseTimestamp)).toBeGreaterThan(Number(task.leaseTimestamp));
    expect(updated.data.retry_count).toBe(1);

    const patched = await tq.tasks.patch(
      { project, taskqueue, task: id, newLeaseSeconds: 30, resource: { queueName: taskqueue, tag: 'z' } },
      o,
    );
    expect(patched.data.tag).toBe('z');
    expect(Number(patched.data.leaseTimestamp)).toBeLessThan(Number(updated.data.leaseTimestamp));

    const deleted = await tq.tasks.delete({ project, taskqueue, task: id }, o);
    expect(deleted.status).toBe(200);
    await tq.tasks.delete({ project, taskqueue, task: 'second' }, o);

    const empty = await tq.tasks.lease({ project, taskqueue, numTasks: 10, leaseSecs: 60 }, o);
    // An empty collection has no `items`, as Google's JSON APIs write it.
    expect(empty.data).toEqual({ kind: 'taskqueues#tasks' });

    // Every request reached the access control with the client's bearer token.
    expect(new Set(seen.map((s) => s.action))).toEqual(
      new Set(['task.insert', 'queue.get', 'task.list', 'task.get', 'task.lease', 'task.update', 'task.delete']),
    );
    expect(seen.every((s) => s.credentials.authorization === 'Bearer dev-token')).toBe(true);
  });

  it('leases with a JSON body, as early discovery clients sent one with every POST', async () => {
    await h.insert({ id: 'j1', payloadBase64: '' });
    await h.insert({ id: 'j2', payloadBase64: '' });
    const withEmpty = await tq.tasks.lease({ project, taskqueue, numTasks: 1, leaseSecs: 60, resource: {} }, o);
    expect(withEmpty.data.items.map((t: Loose) => t.id)).toEqual(['j1']);
    // Parameters in the body too: the query string's numTasks (1) wins over the body's.
    const both = await tq.tasks.lease(
      { project, taskqueue, numTasks: 1, leaseSecs: 60, resource: { numTasks: 5, lease_secs: 1 } },
      o,
    );
    expect(both.data.items.map((t: Loose) => [t.id, t.retry_count])).toEqual([['j2', 1]]);
    // The body does reach the server: a field that is no lease parameter is named in a 400.
    const bogus = await tq.tasks
      .lease({ project, taskqueue, numTasks: 1, leaseSecs: 60, resource: { leaseSeconds: 5 } }, o)
      .catch((e: Loose) => e);
    expect(bogus.code).toBe(400);
    expect(bogus.errors[0].location).toBe('leaseSeconds');
    await tq.tasks.delete({ project, taskqueue, task: 'j1' }, o);
    await tq.tasks.delete({ project, taskqueue, task: 'j2' }, o);
  });

  it('sees 304 Not Modified with ETag and Vary when it revalidates', async () => {
    await h.insert({ id: 'cached', payloadBase64: '' });
    const first = await tq.tasks.get({ project, taskqueue, task: 'cached' }, o);
    const etag: string = first.headers.etag;
    const again = await tq.tasks
      .get({ project, taskqueue, task: 'cached', headers: { 'If-None-Match': etag } }, o)
      .catch((e: Loose) => e.response ?? e);
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(etag);
    expect(again.headers.vary).toBe(first.headers.vary);
    await tq.tasks.delete({ project, taskqueue, task: 'cached' }, o);
  });

  it('gets Google error envelopes it can read (code and errors)', async () => {
    const error = await tq.tasks.get({ project, taskqueue, task: 'missing' }, o).catch((e: Loose) => e);
    expect(error.code).toBe(404);
    expect(error.errors).toEqual([
      { domain: 'global', reason: 'notFound', message: expect.stringContaining('missing') },
    ]);
    const unknown = await tq.tasks
      .insert({ project, taskqueue, resource: { name: 't-17', payloadBase64: '' } }, o)
      .catch((e: Loose) => e);
    expect(unknown.code).toBe(400);
    expect(unknown.errors[0]).toMatchObject({
      reason: 'invalid',
      location: 'name',
      message: expect.stringContaining('"name"'),
    });
    const bad = await tq.tasks.lease({ project, taskqueue, numTasks: 5000, leaseSecs: 60 }, o).catch((e: Loose) => e);
    expect(bad.code).toBe(400);
    expect(bad.errors[0].location).toBe('numTasks');
  });

  it('works through the served discovery document (google.discoverAPI)', async () => {
    await h.insert({ id: 'discovered', payloadBase64: '' });
    const api = await google.discoverAPI(`${server.url}/discovery/v1/apis/taskqueue/v1beta2/rest`);
    const listed = await api.tasks.list({ project: 'local', taskqueue });
    expect(listed.data.items.map((t: Loose) => t.id)).toEqual(['discovered']);
  });
});
