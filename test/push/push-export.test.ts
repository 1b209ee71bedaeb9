import { afterEach, describe, expect, it } from 'vitest';
import { parseExportLine, type ExportLine } from '../../src/core/task-export.js';
import { createApp } from '../../src/http/create-app.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pushQueue } from '../helpers/push-sink.js';

/** Queues that hold their tasks (rate 0: nothing is dispatched), so an export sees every request as it was added. */
const CONFIG = serviceConfig([
  pushQueue('from', 'http://127.0.0.1:1', { ratePerSecond: 0 }),
  pushQueue('to', 'http://127.0.0.1:1', { ratePerSecond: 0 }),
  pullQueue('pulled'),
]);

/** Every part of a push request an add can set. */
const TASKS = [
  {
    name: 'put-json',
    method: 'PUT' as const,
    url: '/hooks/put?x=1',
    headers: [
      ['Content-Type', 'application/json'],
      ['X-Trace', 'a'],
      ['X-Trace', 'b'],
    ] as [string, string][],
    payload: '{"a":1}',
    retryOptions: {
      taskRetryLimit: 4,
      taskAgeLimitSeconds: 7200,
      minBackoffSeconds: 2,
      maxBackoffSeconds: 60,
      maxDoublings: 3,
    },
    dispatchDeadlineSeconds: 45,
    countdownSeconds: 3600,
  },
  {
    name: 'get-params',
    method: 'GET' as const,
    url: '/hooks/get',
    params: { q: 'ünï', n: ['1', '2'] },
    countdownSeconds: 3601,
  },
  {
    name: 'default-post',
    payload: Buffer.from([0, 255, 10]),
    retryOptions: { maxBackoffSeconds: 5 },
    countdownSeconds: 3602,
  },
];

async function exportAll(t: TestService, queue: string): Promise<ExportLine[]> {
  const lines: ExportLine[] = [];
  for await (const page of t.operate(queue).exportTasks()) lines.push(...page);
  return lines;
}

describe.each(ENGINES)('export and import of push tasks (%s)', (engine) => {
  let t: TestService | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('keep the request (url, method, headers, body, deadline, retry options): import gives the same tasks, export the same bytes', async () => {
    t = await openTestService(engine, CONFIG);
    await t.service.getQueue('from').add(TASKS);
    const exported = await exportAll(t, 'from');
    expect(exported.map((line) => line.name)).toEqual(['put-json', 'get-params', 'default-post']);
    expect(exported[0]!.push).toEqual({
      url: '/hooks/put?x=1',
      method: 'PUT',
      headers: [
        ['Content-Type', 'application/json'],
        ['X-Trace', 'a'],
        ['X-Trace', 'b'],
      ],
      retryOptions: {
        taskRetryLimit: 4,
        taskAgeLimitSeconds: 7200,
        minBackoffSeconds: 2,
        maxBackoffSeconds: 60,
        maxDoublings: 3,
      },
      dispatchDeadlineSeconds: 45,
    });
    expect(exported[1]!.push).toMatchObject({
      url: '/hooks/get?q=%C3%BCn%C3%AF&n=1&n=2',
      method: 'GET',
      retryOptions: null,
      dispatchDeadlineSeconds: null,
    });
    // retryOptions are written out whole: the import must not fill the gaps with other defaults.
    expect(exported[2]!.push).toMatchObject({
      method: 'POST',
      url: '/_ah/queue/from',
      retryOptions: { minBackoffSeconds: 0.1, maxBackoffSeconds: 5, maxDoublings: 16 },
    });

    // Through JSON text, as the CLI and the admin route carry it.
    const text = exported.map((line) => JSON.stringify(line)).join('\n');
    const parsed = text.split('\n').map((line, i) => parseExportLine(JSON.parse(line), i + 1));
    expect(await t.operate('to').importTasks(parsed)).toBe(3);
    const original = await t.operate('from').browseTasks();
    const imported = await t.operate('to').browseTasks();
    expect(imported.map((task) => [task.name, task.etaUsec, task.push, task.payload])).toEqual(
      original.map((task) => [task.name, task.etaUsec, task.push, task.payload]),
    );
    expect((await exportAll(t, 'to')).map((line) => JSON.stringify(line)).join('\n')).toBe(text);
  });

  it('an export from before push requests were kept imports as default POSTs; a pull line keeps no push key', async () => {
    t = await openTestService(engine, CONFIG);
    const old = parseExportLine({ name: 'old-1', etaUsec: 1_700_000_000_000_000, tag: null, payloadBase64: 'aGk=' }, 1);
    expect(old).not.toHaveProperty('push');
    expect(await t.operate('to').importTasks([old])).toBe(1);
    const [task] = await t.operate('to').browseTasks();
    expect(task!.push).toEqual({
      url: '/_ah/queue/to',
      method: 'POST',
      headers: [],
      retry: null,
      deadlineSeconds: null,
    });

    await t.service.getQueue('pulled').add({ name: 'p', payload: 'x' });
    const [pulled] = await exportAll(t, 'pulled');
    expect(Object.keys(pulled!)).toEqual(['name', 'etaUsec', 'tag', 'payloadBase64']);
    // A push line into a pull queue is refused, as a push add is.
    const pushLine = (await exportAll(t, 'to'))[0]!;
    await expect(t.operate('pulled').importTasks([{ ...pushLine, name: 'p2' }])).rejects.toMatchObject({
      code: 'INVALID_QUEUE_MODE',
    });
  });

  it('a malformed push request names its line and field; its values are checked as an add checks them', async () => {
    t = await openTestService(engine, CONFIG);
    const line = { name: 'x', etaUsec: 1, tag: null, payloadBase64: '' };
    const bad = (push: unknown) => () => parseExportLine({ ...line, push }, 7);
    expect(bad('POST')).toThrow('line 7: expected push to be an object');
    expect(bad({ url: '/a', method: 'FETCH', headers: [] })).toThrow(
      'line 7: push.method must be one of POST, GET, PUT, DELETE, HEAD, PATCH',
    );
    expect(bad({ url: '/a', method: 'GET', headers: [['only-name']] })).toThrow(
      'push.headers must be a list of [name, value] pairs',
    );
    expect(bad({ url: '/a', method: 'GET', headers: [], colour: 'red' })).toThrow('unknown field "push.colour"');
    expect(bad({ url: '/a', method: 'GET', headers: [], retryOptions: { retries: 3 } })).toThrow(
      'unknown field "push.retryOptions.retries"',
    );
    expect(bad({ url: '/a', method: 'GET', headers: [], dispatchDeadlineSeconds: '15' })).toThrow(
      'push.dispatchDeadlineSeconds must be a number or null',
    );
    const outOfRange = parseExportLine(
      { ...line, push: { url: '/a', method: 'POST', headers: [], retryOptions: null, dispatchDeadlineSeconds: 5 } },
      1,
    );
    await expect(t.operate('to').importTasks([outOfRange])).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    const relative = parseExportLine(
      {
        ...line,
        push: { url: 'no-slash', method: 'POST', headers: [], retryOptions: null, dispatchDeadlineSeconds: null },
      },
      1,
    );
    await expect(t.operate('to').importTasks([relative])).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await t.operate('to').browseTasks()).toEqual([]);
  });

  it('the admin REST export and import carry the request', async () => {
    t = await openTestService(engine, CONFIG);
    const app = createApp({ service: t.service });
    await t.service.getQueue('from').add(TASKS);
    const admin = (queue: string, path: string, init?: RequestInit) =>
      app.request(`/taskqueue/admin/v1/taskqueues/${queue}${path}`, init);
    const exported = await admin('from', '/tasks/export');
    expect(exported.status).toBe(200);
    const text = await exported.text();
    expect(text.split('\n')[0]).toContain(
      '"push":{"url":"/hooks/put?x=1","method":"PUT","headers":[["Content-Type","application/json"],["X-Trace","a"],["X-Trace","b"]]',
    );
    const imported = await admin('to', '/tasks/import', {
      method: 'POST',
      body: text,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(imported.status).toBe(200);
    expect(await imported.json()).toEqual({ name: 'to', imported: 3 });
    expect(await (await admin('to', '/tasks/export')).text()).toBe(text);
    const bad = await admin('to', '/tasks/import', {
      method: 'POST',
      body: `${JSON.stringify({ name: 'y', etaUsec: 1, tag: null, payloadBase64: '', push: { url: '/a', method: 'TRACE', headers: [] } })}\n`,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('line 1: push.method must be one of');
  });
});
