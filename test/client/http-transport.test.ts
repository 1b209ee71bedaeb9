import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskQueueApiError, TaskQueueClient } from '../../src/client/index.js';

/** A TCP server that accepts connections and never answers (a hung upstream). */
async function silentServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('the REST client over HTTP', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('gives up on a server that does not answer by the deadline, as a retryable network error', async () => {
    const server = await silentServer();
    close = server.close;
    const client = new TaskQueueClient({ baseUrl: server.url, timeoutMs: 200, retries: 0 });
    const started = Date.now();
    const error = await client.getQueue('q').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskQueueApiError);
    expect(error).toMatchObject({ status: 0, reason: 'networkError', retryable: true });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('the same through a fetch the caller gives, which makes every call', async () => {
    const server = await silentServer();
    close = server.close;
    const seen: string[] = [];
    const client = new TaskQueueClient({
      baseUrl: `${server.url}/prefix/`,
      project: null,
      timeoutMs: 200,
      retries: 0,
      fetch: (input, init) => {
        seen.push(`${init?.method ?? 'GET'} ${String(input)}`);
        return fetch(input, init);
      },
    });
    const error = await client.getQueue('q').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 0, reason: 'networkError' });
    expect(seen).toEqual([`GET ${server.url}/prefix/taskqueue/v1beta2/projects/taskqueues/q`]);
  });

  it('a lease whose signal aborts ends at once, before or after it was sent', async () => {
    const server = await silentServer();
    close = server.close;
    const client = new TaskQueueClient({ baseUrl: server.url, timeoutMs: 30_000, retries: 0 });
    const lease = (signal: AbortSignal) =>
      client.lease('q', { numTasks: 1, leaseSecs: 10, waitSecs: 5, signal }).catch((caught: unknown) => caught);
    const stop = new AbortController();
    const started = Date.now();
    const pending = lease(stop.signal);
    setTimeout(() => stop.abort(new Error('stopping')), 100);
    expect(await pending).toMatchObject({ message: 'stopping' });
    expect(await lease(stop.signal)).toMatchObject({ message: 'stopping' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a refused connection is a network error too', async () => {
    const server = await silentServer();
    await server.close();
    const client = new TaskQueueClient({ baseUrl: server.url, retries: 0 });
    await expect(client.getQueue('q')).rejects.toMatchObject({ status: 0, reason: 'networkError' });
  });
});
