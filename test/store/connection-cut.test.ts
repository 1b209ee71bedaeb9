import { createServer, connect, type Server, type Socket } from 'node:net';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/engine/database.js';
import { PgTaskStore } from '../../src/store/pg-task-store.js';
import { testPgUrl } from '../helpers/engines.js';

/** A TCP relay to the test database whose connections the test can cut, as a crash or a network loss would. */
async function relay(): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const target = new URL(testPgUrl());
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = new URL(testPgUrl());
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a connection cut while a query is in flight (postgres)', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => cleanup?.());

  it('fails that query, and the process goes on; the next query reconnects', async () => {
    const link = await relay();
    const database = await openDatabase({ kind: 'postgres', url: link.url });
    const store = new PgTaskStore(database, 'taskqueue');
    cleanup = async () => {
      await store.close();
      await link.close();
    };
    // In flight when the connection goes: an unheard 'error' on the pool's
    // checked-out client used to end the process here (vitest reports it as
    // an unhandled error and fails the file).
    const slow = sql`select pg_sleep(2)`.execute(database.db);
    await new Promise((resolve) => setTimeout(resolve, 300));
    link.cut();
    await expect(slow).rejects.toThrow(/terminated/);
    // The broken client was discarded: the next query gets a fresh connection.
    await expect(store.ping()).resolves.toBeUndefined();
  });
});
