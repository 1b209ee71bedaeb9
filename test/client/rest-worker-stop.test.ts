import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskQueueClient } from '../../src/client/index.js';
import { pullQueue } from '../helpers/configs.js';
import { listen, openHarness, type Harness } from '../http/harness.js';
import { deferred } from '../worker/worker-harness.js';

/**
 * A proxy in front of the server that sends the head of the first lease
 * answer at once and holds its body until told: an answer on its way when
 * the worker stops, as a slow network delivers it.
 */
async function holdingProxy(target: string) {
  const headSent = deferred();
  const letBodyGo = deferred();
  let held = false;
  const server: Server = createServer((req, res) => {
    const upstream = request(`${target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        const hold = !held && (req.url ?? '').includes('/tasks/lease');
        held ||= hold;
        res.writeHead(answer.statusCode ?? 502, answer.headers as IncomingHttpHeaders);
        if (!hold) return void res.end(body);
        res.flushHeaders();
        headSent.resolve();
        void letBodyGo.promise.then(() => res.end(body));
      });
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    headSent: headSent.promise,
    letBodyGo: () => letBodyGo.resolve(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('the REST worker stopping while a lease answer is on its way (postgres)', () => {
  let h: Harness | undefined;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await h?.close();
  });

  it.each(['undici', 'a fetch given'] as const)(
    'takes the answer whose head has come and releases its tasks, instead of dropping them leased (%s)',
    async (transport) => {
      h = await openHarness('postgres', { queues: [pullQueue('q')] });
      const server = await listen(h.app);
      closers.push(server.close);
      const proxy = await holdingProxy(server.url);
      closers.push(proxy.close);
      const core = h.t.service.getQueue('q');
      await core.add({ name: 'late' });
      const headCame = deferred();
      // undici publishes an answer's head as it reads it, before the client's handler sees it: a turn later the client has it.
      const onHead = (message: unknown) => {
        if ((message as { request: { path: string } }).request.path.includes('/tasks/lease')) headCame.resolve();
      };
      if (transport === 'undici') {
        // (fetch's own undici publishes on the same channel: only for the client's transport.)
        subscribe('undici:request:headers', onHead);
        closers.push(async () => void unsubscribe('undici:request:headers', onHead));
      }
      // A fetch's answer has its head when fetch resolves; the client sees it in the same turn, the test in the next.
      const givenFetch: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (String(input).includes('/tasks/lease')) setImmediate(() => headCame.resolve());
        return response;
      };
      const client = new TaskQueueClient({
        baseUrl: proxy.url,
        ...(transport === 'undici' ? {} : { fetch: givenFetch }),
      });
      const ran: string[] = [];
      const worker = client.queue('q').work((task) => void ran.push(task.name), { leaseSeconds: 60 });
      // The server leased the task; its answer is on the wire, its head at the client.
      await proxy.headSent;
      await headCame.promise;
      const stopped = worker.stop();
      proxy.letBodyGo();
      await stopped;
      expect(ran).toEqual([]);
      expect(worker.heldCount).toBe(0);
      // Released by the stop, not leased to nobody for 60 s.
      expect((await core.leaseTasks({ lease: 60, maxTasks: 5 })).map((task) => task.name)).toEqual(['late']);
    },
  );
});
