import { afterEach, describe, expect, it } from 'vitest';
import { pullQueue } from '../helpers/configs.js';
import { b64, openHarness, queuePath, type Harness, type Loose } from './harness.js';

const tasks = `${queuePath()}/tasks`;

describe('tasks.list, tasks.delete and taskqueues.get over HTTP', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('lists live tasks in ETA order without payloads', async () => {
    h = await openHarness('postgres');
    expect((await h.call(tasks)).json).toEqual({ kind: 'taskqueues#tasks' });
    await h.insert({ id: 'second', payloadBase64: b64('2'), leaseTimestamp: 2 });
    await h.insert({ id: 'first', payloadBase64: b64('1'), leaseTimestamp: 1, tag: 'x' });
    const r = await h.call(tasks);
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('taskqueues#tasks');
    expect(r.json.items.map((t: Loose) => t.id)).toEqual(['first', 'second']);
    expect(r.json.items[0]).toEqual({
      kind: 'taskqueues#task',
      id: 'first',
      queueName: 'projects/local/taskqueues/q',
      enqueueTimestamp: expect.stringMatching(/^[0-9]+$/),
      leaseTimestamp: '1',
      retry_count: 0,
      tag: 'x',
    });
    expect(r.json.nextPageToken).toBeUndefined();
  });

  it('pages with maxResults and pageToken (or nextPageToken) through every task once', async () => {
    h = await openHarness('postgres');
    const ids = Array.from({ length: 7 }, (_, i) => `t${i}`);
    for (const [i, id] of ids.entries()) await h.insert({ id, payloadBase64: '', leaseTimestamp: i + 1 });
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const param = pages % 2 === 0 ? 'pageToken' : 'nextPageToken';
      const r = await h.call(`${tasks}?maxResults=3${token ? `&${param}=${token}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.json.items.length).toBeLessThanOrEqual(3);
      seen.push(...r.json.items.map((t: Loose) => t.id));
      token = r.json.nextPageToken;
      pages++;
    } while (token && pages < 10);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);
  });

  it.each([
    ['maxResults=0', 'maxResults'],
    ['maxResults=1001', 'maxResults'],
    ['maxResults=ten', 'maxResults'],
    ['pageToken=garbage!', 'pageToken'],
    ['pageToken=abc', 'pageToken'],
    ['pageToken=a&nextPageToken=b', 'nextPageToken'],
  ])('refuses ?%s with 400 naming %s', async (query, parameter) => {
    h = await openHarness('postgres');
    const r = await h.call(`${tasks}?${query}`);
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain(parameter);
  });

  it('deletes available and leased tasks with an empty 200; unknown and deleted names are 404', async () => {
    h = await openHarness('postgres');
    await h.insert({ id: 'free', payloadBase64: '' });
    await h.insert({ id: 'held', payloadBase64: '', leaseTimestamp: 1 });
    await h.lease('numTasks=1&leaseSecs=600');
    for (const id of ['free', 'held']) {
      const r = await h.call(`${tasks}/${id}`, { method: 'DELETE' });
      expect(r.status).toBe(200);
      expect(r.text).toBe('');
    }
    expect(await h.t.sql(`select name from ${h.t.schema}.tasks`)).toEqual([]);
    const again = await h.call(`${tasks}/free`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(again.json.error.message).toContain('deleted');
    expect((await h.call(`${tasks}/never`, { method: 'DELETE' })).status).toBe(404);
  });

  it('gets a queue, with maxLeases, the ACL and, on request, statistics', async () => {
    h = await openHarness('postgres', {
      queues: [
        pullQueue('q', {
          maxLeases: 5,
          acl: { userEmails: ['worker@example.com'], writerEmails: ['producer@example.com'] },
        }),
      ],
      adminEmails: ['admin@example.com'],
    });
    const plain = await h.call(queuePath());
    expect(plain.status).toBe(200);
    expect(plain.json).toEqual({
      kind: 'taskqueues#taskqueue',
      id: 'q',
      maxLeases: 5,
      // Extension: the backoff REST worker runners apply (App Engine's defaults here).
      retryParameters: { minBackoffSeconds: 0.1, maxBackoffSeconds: 3600, maxDoublings: 16 },
      acl: {
        adminEmails: ['admin@example.com'],
        consumerEmails: ['worker@example.com'],
        producerEmails: ['producer@example.com'],
      },
    });
    expect((await h.call(`${queuePath()}?getStats=false`)).json.stats).toBeUndefined();
    const empty = await h.call(`${queuePath()}?getStats=true`);
    expect(empty.json.stats).toEqual({ totalTasks: 0, leasedLastMinute: '0', leasedLastHour: '0' });
    await h.insert({ id: 'a', payloadBase64: '', leaseTimestamp: String(1_600_000_000_000_000) });
    await h.insert({ id: 'b', payloadBase64: '' });
    await h.lease('numTasks=1&leaseSecs=60');
    const stats = await h.call(`${queuePath()}?getStats=true`);
    expect(stats.json.stats).toEqual({
      totalTasks: 2,
      oldestTask: expect.stringMatching(/^[0-9]{10}$/),
      leasedLastMinute: '1',
      leasedLastHour: '1',
    });
  });

  it('answers maxLeases 0 for a queue without a retry limit', async () => {
    h = await openHarness('postgres');
    const r = await h.call(queuePath());
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: 'taskqueues#taskqueue', id: 'q', maxLeases: 0 });
    expect((await h.call(`${queuePath()}?fields=maxLeases`)).json).toEqual({ maxLeases: 0 });
  });

  it('answers 404 for an unknown queue and 400 for a push queue', async () => {
    h = await openHarness('postgres');
    const unknown = await h.call(queuePath('nope'));
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.errors[0].reason).toBe('notFound');
    expect((await h.call(`${queuePath('nope')}/tasks`, { method: 'POST', body: { payloadBase64: '' } })).status).toBe(
      404,
    );
    const push = await h.call(queuePath('default'));
    expect(push.status).toBe(400);
    expect(push.json.error.errors[0].reason).toBe('invalidQueueMode');
  });
});

describe('paths', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('accept the project as app, s~app and e~app, and the short form without it', async () => {
    h = await openHarness('postgres');
    await h.insert({ id: 't', payloadBase64: '' });
    for (const prefix of [
      '/taskqueue/v1beta2/projects/local/taskqueues/q',
      '/taskqueue/v1beta2/projects/s~local/taskqueues/q',
      '/taskqueue/v1beta2/projects/e~local/taskqueues/q',
      '/taskqueue/v1beta2/projects/taskqueues/q',
    ]) {
      expect((await h.call(prefix)).json.id).toBe('q');
      expect((await h.call(`${prefix}/tasks`)).json.items).toHaveLength(1);
      expect((await h.call(`${prefix}/tasks/t`)).json.id).toBe('t');
    }
    const short = '/taskqueue/v1beta2/projects/taskqueues/q/tasks';
    expect((await h.call(short, { method: 'POST', body: { id: 'u', payloadBase64: '' } })).status).toBe(200);
    expect((await h.call(`${short}/lease?numTasks=10&leaseSecs=60`, { method: 'POST' })).json.items).toHaveLength(2);
    expect((await h.call(`${short}/u?newLeaseSeconds=5`, { method: 'PATCH', body: {} })).status).toBe(200);
    expect((await h.call(`${short}/u`, { method: 'DELETE' })).status).toBe(200);
  });

  it('serve the short form of a queue literally named "taskqueues"', async () => {
    h = await openHarness('postgres', { queues: [pullQueue('taskqueues')] });
    const r = await h.call('/taskqueue/v1beta2/projects/taskqueues/taskqueues/tasks', {
      method: 'POST',
      body: { id: 'tasks', payloadBase64: '' },
    });
    expect(r.status).toBe(200);
    expect((await h.call('/taskqueue/v1beta2/projects/taskqueues/taskqueues/tasks/tasks')).json.id).toBe('tasks');
    expect((await h.call('/taskqueue/v1beta2/projects/taskqueues/taskqueues/tasks')).json.items).toHaveLength(1);
  });

  it('answer 404 for another project and for unknown paths, 405 for a wrong method', async () => {
    h = await openHarness('postgres');
    const other = await h.call('/taskqueue/v1beta2/projects/other/taskqueues/q/tasks');
    expect(other.status).toBe(404);
    expect(other.json.error.message).toContain('other');
    const unknown = await h.call('/taskqueue/v1beta2/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.errors[0]).toEqual({ domain: 'global', reason: 'notFound', message: expect.any(String) });
    const wrong = await h.call(`${queuePath()}`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
  });
});
