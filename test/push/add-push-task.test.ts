import { afterEach, describe, expect, it } from 'vitest';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { ENGINES, openTestService } from '../helpers/engines.js';
import { pushQueue, startSink, type Sink } from '../helpers/push-sink.js';
import { openHarness, queuePath, type Harness } from '../http/harness.js';
import { usePushFixture } from './push-fixture.js';

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

describe.each(ENGINES)('adding push tasks (%s)', (engine) => {
  const push = usePushFixture();

  it('checks every rule of a push task, and refuses PULL tasks in push queues and push tasks in pull queues', async () => {
    // Rate 0: nothing is dispatched, so the stored rows can be read as added.
    const { t } = await push.start(engine, {
      queues: (url) => [pushQueue('h', url, { ratePerSecond: 0 }), pullQueue('p')],
    });
    const q = t.service.getQueue('h');
    const pull = t.service.getQueue('p');
    expect(await code(q.add({ method: 'PULL' }))).toBe('INVALID_QUEUE_MODE');
    expect(await code(pull.add({ url: '/x' }))).toBe('INVALID_QUEUE_MODE');
    expect(await code(pull.add({ method: 'POST' }))).toBe('INVALID_QUEUE_MODE');
    expect(await code(pull.add({ headers: { A: 'b' } }))).toBe('INVALID_QUEUE_MODE');
    expect(await code(q.add({ method: 'OPTIONS' as never }))).toBe('INVALID_REQUEST');
    expect(await code(q.add({ url: 'no-slash' }))).toBe('INVALID_REQUEST');
    expect(await code(q.add({ url: '/a b' }))).toBe('INVALID_REQUEST');
    expect(await code(q.add({ url: `/${'x'.repeat(2083)}` }))).toBe('INVALID_REQUEST');
    expect(await code(q.add({ method: 'GET', payload: 'body' }))).toBe('INVALID_PAYLOAD');
    expect(await code(q.add({ method: 'HEAD', payload: 'body' }))).toBe('INVALID_PAYLOAD');
    expect(await code(q.add({ method: 'DELETE', payload: 'body' }))).toBe('INVALID_PAYLOAD');
    expect(await code(q.add({ payload: 'a', params: { a: 'b' } }))).toBe('INVALID_PAYLOAD');
    expect(await code(q.add({ tag: 't' }))).toBe('INVALID_REQUEST');
    expect(await code(q.add({ headers: { 'Bad Name': 'x' } }))).toBe('INVALID_REQUEST');
    expect(await code(q.add({ headers: { A: 'line\r\nbreak' } }))).toBe('INVALID_REQUEST');
    expect(await code(q.add({ payload: Buffer.alloc(100 * 1024) }))).toBe('TASK_TOO_LARGE');
    expect(await code(q.add({ url: '/x', headers: { A: 'b' }, payload: Buffer.alloc(100 * 1024 - 100) }))).toBe('ok');
    expect(await code(q.add({ dispatchDeadlineSeconds: 14 }))).toBe('INVALID_REQUEST');
    expect(await code(q.add({ dispatchDeadlineSeconds: 86401 }))).toBe('INVALID_REQUEST');
    expect(await code(q.add({ retryOptions: { minBackoffSeconds: 5, maxBackoffSeconds: 1 } }))).toBe('INVALID_REQUEST');
    expect(await code(q.add({ retryOptions: { taskRetryLimit: -1 } }))).toBe('INVALID_REQUEST');
    expect(await code(q.add({ countdownSeconds: 30 * 86400 + 1 }))).toBe('INVALID_ETA');
    expect(await code(q.add([{ name: 'same' }, { name: 'same' }]))).toBe('DUPLICATE_TASK_NAME');

    const post = await q.add({ name: 'form', params: { a: '1', b: ['x y', 'z&'] } });
    expect(post.payload.toString()).toBe('a=1&b=x+y&b=z%26');
    expect(post.push).toMatchObject({
      url: '/_ah/queue/h',
      method: 'POST',
      headers: [['Content-Type', 'application/x-www-form-urlencoded']],
    });
    const get = await q.add({ name: 'query', method: 'GET', url: '/path', params: { a: '1' } });
    expect(get.push).toMatchObject({ url: '/path?a=1', method: 'GET' });
    expect(get.payload.length).toBe(0);
    expect(await code(q.add({ method: 'GET', url: '/p?x=1', params: { a: '1' } }))).toBe('INVALID_REQUEST');
    const dropped = await q.add({
      name: 'dropped',
      headers: {
        'X-AppEngine-TaskName': 'forged',
        'x-appengine-failfast': 'true',
        'X-AppEngine-Current-Namespace': 'tenant-a',
        'X-CloudTasks-QueueName': 'forged',
        'X-Mine': '1',
      },
    });
    expect(dropped.push?.headers).toEqual([
      ['x-appengine-failfast', 'true'],
      ['X-AppEngine-Current-Namespace', 'tenant-a'],
      ['X-Mine', '1'],
    ]);
    const retry = await q.add({
      name: 'own-retry',
      retryOptions: { taskRetryLimit: 2, minBackoffSeconds: 5 },
      dispatchDeadlineSeconds: 30,
    });
    expect(retry.push).toMatchObject({
      retry: {
        retryLimit: 2,
        parameters: { minBackoffSeconds: 5, maxBackoffSeconds: 3600, maxDoublings: 16, ageLimitSeconds: null },
      },
      deadlineSeconds: 30,
    });
    // Names and tombstones as for pull tasks.
    expect(await code(q.add({ name: 'form' }))).toBe('TASK_ALREADY_EXISTS');
    await q.deleteTask('form');
    expect(await code(q.add({ name: 'form' }))).toBe('TOMBSTONED_TASK');
    const rows = await t.sql<{ name: string; push: { method: string } }>(
      `select name, push from ${t.schema}.tasks order by name`,
    );
    const methods = Object.fromEntries(rows.map((row) => [row.name, row.push.method]));
    expect(methods).toMatchObject({ dropped: 'POST', 'own-retry': 'POST', query: 'GET' });
    expect(methods.form).toBeUndefined();
  });

  it('adds push tasks inside the caller transaction: gone on rollback', async () => {
    if (engine !== 'postgres') return;
    const { t } = await push.start(engine, { push: { ratePerSecond: 0 } });
    const pg = (await import('pg')).default;
    const { testPgUrl } = await import('../helpers/engines.js');
    const client = new pg.Client({ connectionString: testPgUrl() });
    await client.connect();
    await client.query('begin');
    await t.service.getQueue('h').add({ name: 'in-tx', url: '/tx' }, { transaction: client });
    await client.query('rollback');
    await client.end();
    expect(await t.sql(`select name from ${t.schema}.tasks`)).toEqual([]);
  });

  it('fails an add to a push queue with no target URL, naming both settings', async () => {
    const t = await openTestService(engine, serviceConfig([]));
    try {
      await expect(t.service.getQueue('default').add({ payload: 'x' })).rejects.toThrow(
        'push queue "default" has nowhere to deliver: set <target-url> (target_url in queue.yaml) on the queue or TASKQUEUE_PUSH_BASE_URL',
      );
    } finally {
      await t.close();
    }
  });
});

describe('tasks.insert on a push queue (REST extension)', () => {
  let h: Harness | undefined;
  let sink: Sink | undefined;
  afterEach(async () => {
    await h?.close();
    await sink?.close();
  });

  it('takes url, httpMethod and headers, answers them, and delivers the body', async () => {
    sink = await startSink();
    h = await openHarness('postgres', { queues: [pushQueue('hooks', sink.url)] });
    const r = await h.call(`${queuePath('hooks')}/tasks`, {
      method: 'POST',
      body: {
        id: 'rest-task',
        payloadBase64: Buffer.from('{"a":1}').toString('base64'),
        url: '/hook',
        httpMethod: 'PUT',
        headers: [
          { name: 'Content-Type', value: 'application/json' },
          { name: 'X-AppEngine-QueueName', value: 'forged' },
        ],
      },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      id: 'rest-task',
      url: '/hook',
      httpMethod: 'PUT',
      headers: [{ name: 'Content-Type', value: 'application/json' }],
    });
    await sink.waitFor(1);
    expect(sink.requests[0]).toMatchObject({ method: 'PUT', url: '/hook' });
    expect(sink.requests[0]!.body.toString()).toBe('{"a":1}');
    expect(sink.requests[0]!.headers['content-type']).toBe('application/json');
    expect(sink.requests[0]!.headers['x-appengine-queuename']).toBe('hooks');
    const bad = await h.call(`${queuePath('hooks')}/tasks`, {
      method: 'POST',
      body: { payloadBase64: '', headers: 'x' },
    });
    expect(bad.status).toBe(400);
    const lease = await h.call(`${queuePath('hooks')}/tasks/lease?numTasks=1&leaseSecs=10`, { method: 'POST' });
    expect(lease.json.error.errors[0].reason).toBe('invalidQueueMode');
  });

  it('takes dispatchDeadlineSeconds (15 s to 24 h), answers it, and refuses other values with a 400 naming the field', async () => {
    // Rate 0: nothing is dispatched, so the task stays to be read back.
    h = await openHarness('postgres', { queues: [pushQueue('hooks', 'http://127.0.0.1:1', { ratePerSecond: 0 })] });
    const insert = (body: Record<string, unknown>) =>
      h!.call(`${queuePath('hooks')}/tasks`, { method: 'POST', body: { payloadBase64: '', ...body } });
    const r = await insert({ id: 'slow-task', dispatchDeadlineSeconds: 1800 });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: 'slow-task', dispatchDeadlineSeconds: 1800 });
    expect((await h.call(`${queuePath('hooks')}/tasks/slow-task`)).json.dispatchDeadlineSeconds).toBe(1800);
    // Left out: the default deadline, and none answered.
    expect((await insert({ id: 'plain-task' })).json.dispatchDeadlineSeconds).toBeUndefined();
    for (const edge of [15, 86400]) expect((await insert({ dispatchDeadlineSeconds: edge })).status).toBe(200);
    for (const bad of [14.9, 0, -1, 86401, '600', true, { seconds: 600 }]) {
      const refused = await insert({ dispatchDeadlineSeconds: bad });
      expect(refused.status).toBe(400);
      expect(refused.json.error.message).toContain('dispatchDeadlineSeconds');
      expect(refused.json.error.message).toMatch(/15 to 86400/);
    }
  });

  it('answers a credential header masked while the handler still receives it', async () => {
    sink = await startSink();
    h = await openHarness('postgres', { queues: [pushQueue('hooks', sink.url)] });
    const r = await h.call(`${queuePath('hooks')}/tasks`, {
      method: 'POST',
      body: {
        id: 'masked-task',
        payloadBase64: '',
        url: '/hook',
        httpMethod: 'POST',
        headers: [
          { name: 'Authorization', value: 'Bearer handler-secret' },
          { name: 'X-Api-Key', value: 'key-secret' },
          { name: 'X-Trace', value: 'visible' },
        ],
      },
    });
    expect(r.status).toBe(200);
    // tasks.insert, tasks.get and tasks.list share one representation.
    expect(r.json.headers).toEqual([
      { name: 'Authorization', value: '(hidden)' },
      { name: 'X-Api-Key', value: '(hidden)' },
      { name: 'X-Trace', value: 'visible' },
    ]);
    expect(JSON.stringify(r.json)).not.toContain('-secret');
    await sink.waitFor(1);
    expect(sink.requests[0]!.headers['authorization']).toBe('Bearer handler-secret');
    expect(sink.requests[0]!.headers['x-api-key']).toBe('key-secret');
  });
});
