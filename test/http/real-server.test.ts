import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64, listen, openHarness, queuePath, type Harness } from './harness.js';

interface RawReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly socket: unknown;
}

/** One request with node:http, so the test sees the bytes on the wire (fetch would inflate gzip itself). */
function raw(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    chunks?: Buffer[];
    agent?: Agent;
  } = {},
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: options.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            socket: req.socket,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.chunks) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else {
      req.end(options.body);
    }
  });
}

describe('over a real HTTP server on 127.0.0.1', () => {
  let h: Harness;
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    h = await openHarness('postgres');
    server = await listen(h.app);
    for (let i = 0; i < 40; i++)
      await h.insert({ id: `task-${i}`, payloadBase64: b64(`payload number ${i} `.repeat(10)), tag: 'tagged' });
  });
  afterAll(async () => {
    await server.close();
    await h.close();
  });

  const listUrl = () => `${server.url}${queuePath()}/tasks`;

  it('gzips when Accept-Encoding has gzip AND User-Agent contains gzip, and only then', async () => {
    const both = await raw(listUrl(), {
      headers: { 'accept-encoding': 'gzip', 'user-agent': 'google-api-nodejs-client/29.0.0 (gzip)' },
    });
    expect(both.status).toBe(200);
    expect(both.headers['content-encoding']).toBe('gzip');
    expect(both.headers.vary).toContain('Accept-Encoding');
    const inflated = JSON.parse(gunzipSync(both.body).toString());
    expect(inflated.items).toHaveLength(40);
    expect(both.body.byteLength).toBeLessThan(Buffer.byteLength(JSON.stringify(inflated)) / 2);

    const noUa = await raw(listUrl(), { headers: { 'accept-encoding': 'gzip', 'user-agent': 'curl/8' } });
    expect(noUa.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(noUa.body.toString()).items).toHaveLength(40);
    const noAccept = await raw(listUrl(), { headers: { 'user-agent': 'x (gzip)' } });
    expect(noAccept.headers['content-encoding']).toBeUndefined();
  });

  it('does not gzip small bodies', async () => {
    const r = await raw(`${listUrl()}/task-1?fields=id`, {
      headers: { 'accept-encoding': 'gzip', 'user-agent': 'x (gzip)' },
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(r.body.toString())).toEqual({ id: 'task-1' });
  });

  it('serves many requests over one keep-alive connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const sockets = new Set<unknown>();
      for (let i = 0; i < 5; i++) {
        const r = await raw(`${listUrl()}/task-${i}`, { agent });
        expect(r.status).toBe(200);
        sockets.add(r.socket);
      }
      const inserted = await raw(listUrl(), {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'ka', payloadBase64: '' }),
      });
      expect(inserted.status).toBe(200);
      sockets.add(inserted.socket);
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('reads chunked bodies (no Content-Length) and caps them by counting', async () => {
    const body = Buffer.from(JSON.stringify({ id: 'chunked', payloadBase64: b64('in pieces') }));
    const ok = await raw(listUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      chunks: [body.subarray(0, 10), body.subarray(10)],
    });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body.toString()).id).toBe('chunked');

    const piece = Buffer.alloc(512 * 1024, 0x41);
    const tooBig = await raw(listUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      chunks: [Buffer.from('{"payloadBase64":"'), piece, piece, piece, piece, piece],
    });
    // The rest of the body is read and discarded (lingering close), so the 413 arrives; then the connection closes.
    expect(tooBig.status).toBe(413);
    expect(tooBig.headers.connection).toBe('close');
    expect(JSON.parse(tooBig.body.toString()).error.code).toBe(413);
    expect(await h.t.sql(`select 1 from ${h.t.schema}.tasks where octet_length(payload) > 1000000`)).toEqual([]);
    expect((await raw(`${listUrl()}/chunked`)).status).toBe(200);
  });

  it('refuses an oversized Content-Length before reading the body', async () => {
    const r = await raw(listUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(5 * 1024 * 1024) },
      chunks: [Buffer.from('{')],
    });
    expect(r.status).toBe(413);
  });

  it('reads the lease form body and gzip request bodies from the socket', async () => {
    const form = await raw(`${listUrl()}/lease`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'numTasks=2&leaseSecs=60',
    });
    expect(form.status).toBe(200);
    expect(JSON.parse(form.body.toString()).items).toHaveLength(2);
    const { gzipSync } = await import('node:zlib');
    const zipped = await raw(listUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ id: 'gz', payloadBase64: '' })),
    });
    expect(zipped.status).toBe(200);
    expect(JSON.parse(zipped.body.toString()).id).toBe('gz');
  });

  it('re-dispatches X-HTTP-Method-Override: PATCH with its body intact', async () => {
    await h.insert({ id: 'override', payloadBase64: '', tag: 'before' });
    await raw(`${listUrl()}/lease`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'numTasks=100&leaseSecs=60',
    });
    const r = await raw(`${listUrl()}/override?newLeaseSeconds=30`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-http-method-override': 'PATCH' },
      body: JSON.stringify({ tag: 'after' }),
    });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.toString())).toMatchObject({ id: 'override', tag: 'after' });
  });

  it('serves /healthz and the discovery document with this server as root', async () => {
    const health = await raw(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body.toString())).toEqual({ status: 'ok', engine: 'postgres' });
    const discovery = JSON.parse((await raw(`${server.url}/discovery/v1/apis/taskqueue/v1beta2/rest`)).body.toString());
    expect(discovery.rootUrl).toBe(`${server.url}/`);
    expect(discovery.baseUrl).toBe(`${server.url}/taskqueue/v1beta2/projects/`);
  });
});
