import { gunzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OPEN_ACCESS } from '../../src/auth/access-control.js';
import { batchHandler } from '../../src/http/batch/batch-handler.js';
import { pullQueue } from '../helpers/configs.js';
import { batchBody, batchReply, BOUNDARY, parseBatchReply, sendBatch, type BatchCall } from './batch-helpers.js';
import { b64, listen, openHarness, queuePath, unb64, type Harness } from './harness.js';

const tasks = `${queuePath()}/tasks`;
const del = (name: string, extra: Partial<BatchCall> = {}): BatchCall => ({
  line: `DELETE ${tasks}/${name}`,
  ...extra,
});

describe('the batch endpoint (Google batch format)', () => {
  let h: Harness;
  let h2: Harness | undefined;
  afterEach(async () => {
    await h.close();
    await h2?.close();
    h2 = undefined;
  });

  it('deletes tasks and answers one application/http part per request, in order, with Content-IDs echoed', async () => {
    h = await openHarness('postgres');
    for (const id of ['t1', 't2', 't3']) await h.insert({ id, payloadBase64: b64(id) });
    await h.lease('numTasks=1&leaseSecs=600');
    const r = await sendBatch(
      h.app,
      batchBody([
        del('t1', { contentId: '<item1:12930812@barnyard.example.com>' }),
        del('never', { contentId: 'plain-id' }),
        del('t2'),
        del('t3', { contentId: '<3>' }),
      ]),
    );
    const parts = parseBatchReply(r);
    expect(parts.map((p) => [p.contentId, p.status, p.reason])).toEqual([
      ['<response-item1:12930812@barnyard.example.com>', 200, 'OK'],
      ['response-plain-id', 404, 'Not Found'],
      [undefined, 200, 'OK'],
      ['<response-3>', 200, 'OK'],
    ]);
    expect(parts[0]!.text).toBe('');
    expect(parts[1]!.json.error).toMatchObject({ code: 404, errors: [{ domain: 'global', reason: 'notFound' }] });
    expect(parts[1]!.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(await h.t.sql(`select name from ${h.t.schema}.tasks`)).toEqual([]);
    expect(r.headers.get('vary')).toBe('Accept-Encoding, User-Agent');
  });

  it('sends the DELETEs of one queue to the core as ONE deleteTask(names) call', async () => {
    h = await openHarness('postgres', { queues: [pullQueue('q'), pullQueue('other')] });
    const names = Array.from({ length: 50 }, (_, i) => `t${i}`);
    for (const id of names) await h.insert({ id, payloadBase64: '' });
    await h.insert({ id: 'o1', payloadBase64: '' }, 'other');
    const q = h.t.service.getQueue('q');
    const other = h.t.service.getQueue('other');
    const onQ = vi.spyOn(q, 'deleteTask');
    const onOther = vi.spyOn(other, 'deleteTask');
    const calls = [
      ...names.slice(0, 25).map((n) => del(n)),
      { line: `DELETE ${queuePath('other')}/tasks/o1` },
      ...names.slice(25).map((n) => ({ line: `DELETE /taskqueue/v1beta2/projects/taskqueues/q/tasks/${n}` })),
    ];
    const parts = parseBatchReply(await sendBatch(h.app, batchBody(calls)));
    expect(parts.map((p) => p.status)).toEqual(calls.map(() => 200));
    expect(onQ).toHaveBeenCalledTimes(1);
    expect(onQ).toHaveBeenCalledWith(names);
    expect(onOther).toHaveBeenCalledTimes(1);
    expect(onOther).toHaveBeenCalledWith(['o1']);
  });

  it('answers a name given twice as a sequence of calls would: 200, then 404 (deleted)', async () => {
    h = await openHarness('postgres');
    await h.insert({ id: 'twice', payloadBase64: '' });
    const parts = parseBatchReply(await sendBatch(h.app, batchBody([del('twice'), del('twice')])));
    expect(parts.map((p) => p.status)).toEqual([200, 404]);
    expect(parts[1]!.json.error.message).toContain('deleted');
  });

  it('answers exactly as the routes do, with or without the combined DELETE path (byte for byte)', async () => {
    // Two services with the same data: one answers through the combined path, the other routes every part.
    const setup = async () => {
      const harness = await openHarness('postgres', { queues: [pullQueue('q'), pullQueue('q2')] });
      for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'gone', 'held'])
        await harness.insert({ id, payloadBase64: b64(id) });
      expect((await harness.call(`${tasks}/gone`, { method: 'DELETE' })).status).toBe(200);
      return harness;
    };
    h = await setup();
    h2 = await setup();
    const routedOnly = new Hono();
    routedOnly.post(
      '/batch',
      batchHandler(
        h2.app,
        { service: h2.t.service, accessControl: OPEN_ACCESS, publicUrl: undefined, adminEmails: undefined },
        { combine: false },
      ),
    );
    const calls: BatchCall[] = [
      del('a'),
      { line: `DELETE /taskqueue/v1beta2/projects/s~local/taskqueues/q/tasks/b` },
      { line: `DELETE /taskqueue/v1beta2/projects/taskqueues/q/tasks/c` },
      { line: `DELETE /taskqueue/v1beta2/projects/other/taskqueues/q/tasks/d` },
      { line: `DELETE ${queuePath('nosuch')}/tasks/d` },
      { line: `DELETE ${queuePath('default')}/tasks/d` },
      { line: `DELETE ${tasks}/bad.name` },
      del('gone'),
      del('never'),
      del('a'),
      { line: `DELETE ${tasks}/d?prettyPrint=false` },
      { line: `DELETE ${tasks}/never?prettyPrint=false` },
      { line: `DELETE ${tasks}/never?prettyPrint=maybe` },
      { line: `DELETE ${tasks}/never?alt=xml` },
      { line: `DELETE ${tasks}/e?fields=a(` },
      { line: `DELETE ${tasks}/e?oauth_token=abc&quotaUser=u` },
      { line: `DELETE ${tasks}/never?oauth_token=abc` },
      del('held', { headers: { 'If-Match': '"stale"' } }),
      { line: `DELETE ${queuePath('q2')}/tasks/a` },
      { line: `DELETE ${tasks}/%66` },
    ];
    const body = batchBody(calls);
    const combined = await sendBatch(h.app, body, { path: '/batch' });
    const routed = await sendBatch(routedOnly, body, { path: '/batch' });
    const normalise = (text: string) => text.replace(/batch_[A-Za-z0-9_-]+/g, 'BOUNDARY');
    expect(normalise(combined.text)).toBe(normalise(routed.text));
    const statuses = parseBatchReply(combined).map((p) => p.status);
    // The push queue `default` serves deletes too (an extension): its unknown task is 404.
    expect(statuses).toEqual([
      200, 200, 200, 404, 404, 404, 400, 404, 404, 404, 200, 404, 400, 400, 400, 200, 404, 412, 404, 200,
    ]);
    expect(parseBatchReply(combined)[15]!.headers['cache-control']).toBe('private');
    expect(await h.t.sql(`select name from ${h.t.schema}.tasks order by name`)).toEqual(
      await h2.t.sql(`select name from ${h2.t.schema}.tasks order by name`),
    );
  });

  it('sends the inserts of one queue to the core as add(tasks) calls of 100; a failing one is retried call by call', async () => {
    h = await openHarness('postgres');
    await h.insert({ id: 'taken', payloadBase64: '' });
    const q = h.t.service.getQueue('q');
    const add = vi.spyOn(q, 'add');
    const insert = (json: object): BatchCall => ({ line: `POST ${tasks}`, body: JSON.stringify(json) });
    const many = Array.from({ length: 150 }, (_, i) => insert({ id: `m${i}`, payloadBase64: b64(`p${i}`) }));
    const parts = parseBatchReply(await sendBatch(h.app, batchBody(many)));
    expect(parts.map((p) => p.status)).toEqual(many.map(() => 200));
    expect(parts.map((p) => p.json.id)).toEqual(many.map((_, i) => `m${i}`));
    expect(unb64(parts[149]!.json.payloadBase64)).toBe('p149');
    expect(add.mock.calls.map(([tasks]) => (Array.isArray(tasks) ? tasks.length : 1))).toEqual([100, 50]);

    add.mockClear();
    const mixed = parseBatchReply(
      await sendBatch(
        h.app,
        batchBody([
          insert({ id: 'x1', payloadBase64: '' }),
          insert({ id: 'taken', payloadBase64: '' }),
          insert({ id: 'x1', payloadBase64: '' }),
          insert({ payloadBase64: '' }),
        ]),
      ),
    );
    expect(mixed.map((p) => p.status)).toEqual([200, 409, 409, 200]);
    expect(mixed[3]!.json.id).toMatch(/.+/);
    // One combined add (refused: a name in use, a name twice), then one add per call.
    expect(add.mock.calls.map(([tasks]) => (Array.isArray(tasks) ? tasks.length : 1))).toEqual([4, 1, 1, 1, 1]);
    expect(await h.t.sql(`select count(*)::int as n from ${h.t.schema}.tasks`)).toEqual([{ n: 153 }]);
  });

  it('answers inserts exactly as the route does, with or without combining (timestamps aside)', async () => {
    const setup = async () => {
      const harness = await openHarness('postgres', { queues: [pullQueue('q')] });
      await harness.insert({ id: 'old', payloadBase64: '' });
      await harness.insert({ id: 'dead', payloadBase64: '' });
      expect((await harness.call(`${tasks}/dead`, { method: 'DELETE' })).status).toBe(200);
      return harness;
    };
    h = await setup();
    h2 = await setup();
    const routedOnly = new Hono();
    routedOnly.post(
      '/batch',
      batchHandler(
        h2.app,
        { service: h2.t.service, accessControl: OPEN_ACCESS, publicUrl: undefined, adminEmails: undefined },
        { combine: false },
      ),
    );
    const post = (path: string, body: string, headers: Record<string, string> = {}): BatchCall => ({
      line: `POST ${path}`,
      body,
      headers,
    });
    const calls: BatchCall[] = [
      post(tasks, JSON.stringify({ id: 'i1', payloadBase64: b64('one') })),
      post(`${tasks}?fields=id,tag`, JSON.stringify({ id: 'i2', payloadBase64: b64('two'), tag: 'hot' })),
      post(tasks, JSON.stringify({ id: 'old', payloadBase64: '' })),
      post(tasks, JSON.stringify({ id: 'dead', payloadBase64: '' })),
      post(tasks, '{not json'),
      post(tasks, JSON.stringify({ id: 'i3' })),
      post(tasks, JSON.stringify({ id: 'i4', payloadBase64: '*not base64*' })),
      post(tasks, JSON.stringify({ id: 'i5', payloadBase64: '', queueName: 'projects/local/taskqueues/other' })),
      post(
        `${tasks}?prettyPrint=false`,
        JSON.stringify({ id: 'i6', payloadBase64: b64('six'), leaseTimestamp: '1700000000000000' }),
      ),
      post(`${tasks}?oauth_token=abc`, JSON.stringify({ id: 'i7', payloadBase64: '' })),
      post(`${tasks}?fields=bogus`, JSON.stringify({ id: 'i8', payloadBase64: '' })),
      post(`${queuePath('nosuch')}/tasks`, JSON.stringify({ id: 'i9', payloadBase64: '' })),
      post(`${queuePath('default')}/tasks`, JSON.stringify({ id: 'i10', payloadBase64: '' })),
      post('/taskqueue/v1beta2/projects/taskqueues/q/tasks', JSON.stringify({ id: 'i11', payloadBase64: '' })),
      post(
        '/taskqueue/v1beta2/projects/e~local/taskqueues/q/tasks',
        JSON.stringify({ id: 'i12', payloadBase64: '', tag: 'a\u0000b' }),
      ),
      post(tasks, JSON.stringify({ id: 'bad name', payloadBase64: '' })),
      post(tasks, JSON.stringify({ id: 'i13', payloadBase64: '' }), { 'X-HTTP-Method-Override': 'DELETE' }),
      post(tasks, '', {}),
      post(tasks, JSON.stringify({ name: 'i14', payloadBase64: '' })),
      // A percent-encoded parameter name is the same parameter, for the combined path as for the route.
      post(`${tasks}?oauth%5Ftoken=abc`, JSON.stringify({ id: 'i15', payloadBase64: '' })),
    ];
    const body = batchBody(calls);
    const combined = await sendBatch(h.app, body, { path: '/batch' });
    const routed = await sendBatch(routedOnly, body, { path: '/batch' });
    const normalise = (text: string) =>
      text
        .replace(/batch_[A-Za-z0-9_-]+/g, 'BOUNDARY')
        .replace(/"(enqueueTimestamp|leaseTimestamp)":( ?)"[0-9]+"/g, '"$1":$2"T"')
        .replace(/etag: "[^"]+"/g, 'etag: "E"');
    expect(normalise(combined.text)).toBe(normalise(routed.text));
    expect(parseBatchReply(combined).map((p) => p.status)).toEqual([
      200, 200, 409, 409, 400, 400, 400, 400, 200, 200, 400, 404, 400, 200, 400, 400, 400, 400, 400, 200,
    ]);
    expect(parseBatchReply(combined)[19]!.headers['cache-control']).toBe('private');
    expect(await h.t.sql(`select name from ${h.t.schema}.tasks order by name`)).toEqual(
      await h2.t.sql(`select name from ${h2.t.schema}.tasks order by name`),
    );
  });

  it('runs any method of the API in a batch: insert, get, lease, patch, list', async () => {
    h = await openHarness('postgres');
    await h.insert({ id: 'existing', payloadBase64: b64('old'), tag: 'x' });
    const r = await sendBatch(
      h.app,
      batchBody([
        { line: `POST ${tasks}`, body: JSON.stringify({ id: 'new1', payloadBase64: b64('hello') }), contentId: '1' },
        { line: `POST ${tasks}`, body: JSON.stringify({ id: 'existing', payloadBase64: b64('dup') }), contentId: '2' },
        { line: `GET ${tasks}/existing?fields=id,tag`, contentId: '3' },
        { line: `POST ${tasks}/lease?numTasks=1&leaseSecs=60&groupByTag=true&tag=x`, contentId: '4' },
        { line: `GET ${queuePath()}?getStats=true&prettyPrint=false`, contentId: '5', noVersion: true },
        { line: `PUT ${tasks}`, contentId: '6' },
      ]),
    );
    const parts = parseBatchReply(r);
    expect(parts.map((p) => p.status)).toEqual([200, 409, 200, 200, 200, 405]);
    expect(parts[0]!.json).toMatchObject({ kind: 'taskqueues#task', id: 'new1' });
    expect(unb64(parts[0]!.json.payloadBase64)).toBe('hello');
    expect(parts[0]!.headers.etag).toMatch(/^"/);
    expect(parts[2]!.json).toEqual({ id: 'existing', tag: 'x' });
    expect(parts[3]!.json.items.map((t: { id: string }) => t.id)).toEqual(['existing']);
    expect(parts[4]!.text).not.toContain('\n');
    // The calls of a batch run concurrently: the insert may or may not be counted yet.
    expect(parts[4]!.json.stats.totalTasks).toBeGreaterThanOrEqual(1);
  });

  it("applies the batch request's query parameters to each call, unless the call gives its own", async () => {
    h = await openHarness('postgres');
    const r = await sendBatch(h.app, batchBody([del('never'), { line: `DELETE ${tasks}/never?prettyPrint=true` }]), {
      path: '/batch?prettyPrint=false',
    });
    const [compact, pretty] = parseBatchReply(r);
    expect(compact!.text).not.toContain('\n');
    expect(pretty!.text).toContain('\n');
  });

  it('refuses nested batches, full URLs and paths outside the API in their part, and runs the rest', async () => {
    h = await openHarness('postgres');
    await h.insert({ id: 'ok', payloadBase64: '' });
    const parts = parseBatchReply(
      await sendBatch(
        h.app,
        batchBody([
          { line: 'POST /batch/taskqueue/v1beta2' },
          { line: 'POST /batch' },
          { line: `DELETE http://evil.example${tasks}/ok` },
          { line: `DELETE //evil.example${tasks}/ok` },
          { line: 'GET /healthz' },
          { line: `GET /taskqueue/v1beta2/../../batch` },
          del('ok'),
        ]),
      ),
    );
    expect(parts.map((p) => p.status)).toEqual([400, 400, 400, 400, 404, 400, 200]);
    expect(parts[0]!.json.error.message).toContain('may not hold another batch');
  });

  it.each([
    ['a text/plain Content-Type', { 'content-type': 'text/plain' }, 'x', 'multipart/mixed'],
    ['a JSON Content-Type', { 'content-type': 'application/json' }, '{}', 'multipart/mixed'],
    ['no boundary', { 'content-type': 'multipart/mixed' }, 'x', 'boundary'],
    ['no part at all', {}, 'hello', 'no part'],
    ['no request', {}, `--${BOUNDARY}--\r\n`, 'no requests'],
    ['an unclosed part', {}, `--${BOUNDARY}\r\nContent-Type: application/http\r\n\r\nGET ${tasks}\r\n`, 'not closed'],
    [
      'a part of another type',
      {},
      `--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nGET ${tasks}\r\n--${BOUNDARY}--`,
      'application/http',
    ],
    ['a part without headers', {}, `--${BOUNDARY}\r\nGET ${tasks}\r\n--${BOUNDARY}--`, 'empty line'],
    [
      'a bad request line',
      {},
      `--${BOUNDARY}\r\nContent-Type: application/http\r\n\r\nplease delete t1\r\n--${BOUNDARY}--`,
      'request line',
    ],
    [
      'an empty request',
      {},
      `--${BOUNDARY}\r\nContent-Type: application/http\r\n\r\n\r\n--${BOUNDARY}--`,
      'no HTTP request',
    ],
    [
      'a bad header line',
      {},
      `--${BOUNDARY}\r\nContent-Type: application/http\r\n\r\nGET ${tasks}\r\nno colon\r\n\r\n--${BOUNDARY}--`,
      'header line',
    ],
    [
      'a short Content-Length',
      {},
      batchBody([{ line: `POST ${tasks}`, body: '{}', headers: { 'Content-Length': '99' } }]),
      'Content-Length',
    ],
    [
      'base64 parts',
      {},
      `--${BOUNDARY}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: base64\r\n\r\nR0VU\r\n--${BOUNDARY}--`,
      'Transfer-Encoding',
    ],
  ])(
    "answers a batch with %s with one 400 in Google's envelope",
    async (_what, headers: Record<string, string>, body, message) => {
      h = await openHarness('postgres');
      const response = await h.app.request('/batch/taskqueue/v1beta2', {
        method: 'POST',
        headers: { 'content-type': `multipart/mixed; boundary=${BOUNDARY}`, ...headers },
        body,
      });
      const r = await batchReply(response);
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toBe('application/json; charset=UTF-8');
      expect(r.json.error.code).toBe(400);
      expect(r.json.error.errors[0].domain).toBe('global');
      expect(r.json.error.message).toContain(message);
    },
  );

  it('takes at most 1000 requests, and 1000 in one go', async () => {
    h = await openHarness('postgres');
    const names = Array.from({ length: 1001 }, (_, i) => `n${i}`);
    const tooMany = await sendBatch(h.app, batchBody(names.map((n) => del(n))));
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.error.message).toContain('at most 1000');
    const q = h.t.service.getQueue('q');
    await q.add(
      names
        .slice(0, 1000)
        .map((name) => ({ name, payload: Buffer.alloc(0) }))
        .slice(0, 100),
    );
    const parts = parseBatchReply(await sendBatch(h.app, batchBody(names.slice(0, 1000).map((n) => del(n)))));
    expect(parts).toHaveLength(1000);
    expect(parts.filter((p) => p.status === 200)).toHaveLength(100);
    expect(parts.filter((p) => p.status === 404)).toHaveLength(900);
  });

  it('holds its client at most the longest waitSecs, not their sum: long-poll leases share the batch start as their clock', async () => {
    h = await openHarness('postgres');
    // 200 leases waiting 2 s each, run 16 at a time, one after the other would take 13 rounds of 2 s.
    const calls = Array.from({ length: 200 }, () => ({
      line: `POST ${tasks}/lease?numTasks=1&leaseSecs=60&waitSecs=2`,
    }));
    const start = Date.now();
    const pending = sendBatch(h.app, batchBody(calls));
    // Added once the leases wait (their queue marked in queue_waiters), not after a guessed sleep.
    await expect
      .poll(async () => (await h.t.sql(`select 1 from ${h.t.schema}.queue_waiters where until > now()`)).length, {
        interval: 20,
      })
      .toBeGreaterThan(0);
    await h.insert({ id: 'late', payloadBase64: b64('x') });
    const parts = parseBatchReply(await pending);
    const elapsed = Date.now() - start;
    expect(parts.map((p) => p.status)).toEqual(calls.map(() => 200));
    // The task that arrived during the wait went to exactly one of the waiting leases.
    expect(parts.flatMap((p) => (p.json.items ?? []).map((t: { id: string }) => t.id))).toEqual(['late']);
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(10_000);
  });

  it('caps the batch body as any request body (413), and only POST is allowed', async () => {
    h = await openHarness('postgres');
    const big = await h.app.request('/batch', {
      method: 'POST',
      headers: { 'content-type': `multipart/mixed; boundary=${BOUNDARY}`, 'content-length': String(3 * 1024 * 1024) },
      body: 'x',
    });
    expect(big.status).toBe(413);
    const huge = await sendBatch(
      h.app,
      batchBody([{ line: `POST ${tasks}`, body: JSON.stringify({ payloadBase64: 'A'.repeat(2.5 * 1024 * 1024) }) }]),
    );
    expect(huge.status).toBe(413);
    const get = await batchReply(await h.app.request('/batch/taskqueue/v1beta2'));
    expect(get.status).toBe(405);
    expect(get.json.error.code).toBe(405);
  });

  it('gzips the batch response as a whole when the batch request qualifies; parts are never gzipped', async () => {
    h = await openHarness('postgres');
    for (let i = 0; i < 20; i++) await h.insert({ id: `g${i}`, payloadBase64: b64('x'.repeat(200)) });
    const response = await h.app.request('/batch', {
      method: 'POST',
      headers: {
        'content-type': `multipart/mixed; boundary=${BOUNDARY}`,
        'accept-encoding': 'gzip',
        'user-agent': 'test (gzip)',
      },
      body: batchBody([{ line: `POST ${tasks}/lease?numTasks=20&leaseSecs=60` }, { line: `GET ${tasks}` }]),
    });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    const text = gunzipSync(Buffer.from(await response.arrayBuffer())).toString();
    const parts = parseBatchReply({ status: response.status, headers: response.headers, text, json: undefined });
    expect(parts.map((p) => [p.status, p.headers['content-encoding']])).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
    expect(parts[0]!.json.items).toHaveLength(20);
  });

  it('works over a real connection, with bare LF line ends and without versions on the request lines', async () => {
    h = await openHarness('postgres');
    await h.insert({ id: 'lf1', payloadBase64: '' });
    const server = await listen(h.app);
    try {
      const body = batchBody(
        [
          { line: `DELETE ${tasks}/lf1`, contentId: '<a>', noVersion: true },
          { line: `POST ${tasks}`, body: JSON.stringify({ id: 'lf2', payloadBase64: b64('z') }), contentId: '<b>' },
        ],
        { lf: true, boundary: '=_quoted boundary' },
      );
      const response = await fetch(`${server.url}/batch/taskqueue/v1beta2`, {
        method: 'POST',
        headers: { 'content-type': 'multipart/mixed; boundary="=_quoted boundary"' },
        body,
      });
      const parts = parseBatchReply(await batchReply(response));
      expect(parts.map((p) => [p.contentId, p.status])).toEqual([
        ['<response-a>', 200],
        ['<response-b>', 200],
      ]);
      expect(parts[1]!.json.id).toBe('lf2');
    } finally {
      await server.close();
    }
  });
});
