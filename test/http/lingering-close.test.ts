import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, openHarness, queuePath, type Harness } from './harness.js';

/** What one request got: the answer, or the socket error (EPIPE, ECONNRESET) a hard close gives. */
type Outcome = { readonly status: number; readonly body: string } | { readonly error: string };

/**
 * The client runs on a worker thread, with its own event loop, as a client
 * process would: on the server's thread it would read the answer whenever the
 * server yields, and never see the reset. Each request is one write of the
 * whole body, as Node's http.request with a body in memory does.
 */
const CLIENT = `
const { request } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const { url, method, headers, total, times } = workerData;
const body = Buffer.alloc(total, 0x61);
const once = () => new Promise((resolve) => {
  const req = request(url, { method, headers, agent: false }, (res) => {
    const chunks = [];
    res.on('data', (chunk) => chunks.push(chunk));
    res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    res.on('error', (error) => resolve({ error: String(error.code ?? error) }));
  });
  req.on('error', (error) => resolve({ error: String(error.code ?? error) }));
  req.end(body);
});
(async () => {
  const outcomes = [];
  for (let i = 0; i < times; i++) outcomes.push(await once());
  parentPort.postMessage(outcomes);
})();
`;

function sendLarge(
  url: string,
  headers: Record<string, string>,
  total: number,
  method = 'POST',
  times = 20,
): Promise<Outcome[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, { eval: true, workerData: { url, method, headers, total, times } });
    worker.once('message', (outcomes: Outcome[]) => {
      resolve(outcomes);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const MiB = 1024 * 1024;

describe('an early answer to a large body reaches a client that is still sending (lingering close)', () => {
  let h: Harness;
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    h = await openHarness('postgres');
    server = await listen(h.app);
  });
  afterAll(async () => {
    await server.close();
    await h.close();
  });

  const tasksUrl = () => `${server.url}${queuePath()}/tasks`;

  it('413 for a Content-Length over the cap, refused before reading', async () => {
    const outcomes = await sendLarge(
      tasksUrl(),
      { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(8 * MiB) },
      8 * MiB,
    );
    expect(outcomes.map((outcome) => ('status' in outcome ? outcome.status : outcome.error))).toEqual(
      Array(20).fill(413),
    );
    for (const outcome of outcomes) if ('body' in outcome) expect(JSON.parse(outcome.body).error.code).toBe(413);
  });

  it('413 for a chunked body that passes the cap while being read', async () => {
    const outcomes = await sendLarge(
      tasksUrl(),
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      6 * MiB,
    );
    expect(outcomes.map((outcome) => ('status' in outcome ? outcome.status : outcome.error))).toEqual(
      Array(20).fill(413),
    );
    for (const outcome of outcomes)
      if ('body' in outcome) expect(JSON.parse(outcome.body).error.errors[0].reason).toBe('requestTooLarge');
  });

  it('404 for an unknown queue, answered before the body is read', async () => {
    const url = `${server.url}${queuePath('no-such-queue')}/tasks`;
    const outcomes = await sendLarge(
      url,
      { 'content-type': 'application/json', 'content-length': String(4 * MiB) },
      4 * MiB,
    );
    expect(outcomes.map((outcome) => ('status' in outcome ? outcome.status : outcome.error))).toEqual(
      Array(20).fill(404),
    );
    for (const outcome of outcomes) if ('body' in outcome) expect(JSON.parse(outcome.body).error.code).toBe(404);
  });

  it('404 for another project, on a GET carrying a body (the shrunk case the hostile requests found)', async () => {
    const url = `${server.url}${queuePath('q', 'other')}/tasks`;
    const outcomes = await sendLarge(url, { 'content-length': String(2 * MiB) }, 2 * MiB, 'GET');
    expect(outcomes.map((outcome) => ('status' in outcome ? outcome.status : outcome.error))).toEqual(
      Array(20).fill(404),
    );
  });

  it('keeps a keep-alive connection usable once the unread body is drained', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (path: string, method: string, body?: Buffer) =>
      new Promise<{ status: number; socket: Socket }>((resolve, reject) => {
        const req = request(
          `${server.url}${path}`,
          { method, agent, headers: body ? { 'content-type': 'application/json' } : {} },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket as Socket }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    try {
      const early = await send(`${queuePath('no-such-queue')}/tasks`, 'POST', Buffer.alloc(MiB, 0x61));
      expect(early.status).toBe(404);
      const next = await send(`${queuePath()}/tasks`, 'GET');
      expect(next.status).toBe(200);
      expect(next.socket).toBe(early.socket);
    } finally {
      agent.destroy();
    }
  });
});
