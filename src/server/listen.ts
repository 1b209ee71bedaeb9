import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { lingerOnEarlyAnswers } from '../http/lingering-close.js';

/** Where a server listens: its real address (`0.0.0.0:8080`, `[::1]:9000`) and a URL that reaches it. */
export interface Listening {
  readonly server: Server;
  readonly address: string;
  /** Loopback when it listens on every interface. */
  readonly url: string;
}

/** Serves `fetch` on host:port (0: any free port), resolved once it listens. */
export async function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  port: number,
  host: string,
): Promise<Listening> {
  const server = await new Promise<Server>((resolve, reject) => {
    // The lingering close replaces the adapter's clean-up of unread bodies.
    const started = serve({ fetch, port, hostname: host, autoCleanupIncoming: false }) as Server;
    lingerOnEarlyAnswers(started);
    started.once('listening', () => resolve(started));
    started.once('error', reject);
  });
  const bound = server.address() as AddressInfo;
  const address = bound.family === 'IPv6' ? `[${bound.address}]:${bound.port}` : `${bound.address}:${bound.port}`;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${bound.port}`;
  return { server, address, url };
}
