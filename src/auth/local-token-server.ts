import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { LocalIssuer } from './local-issuer.js';
import { createLocalTokenApp } from './local-token-app.js';
import { removeTokenEndpointFile, writeTokenEndpointFile } from './local-token-endpoint-file.js';

/** A running local token endpoint. */
export interface LocalTokenServer {
  /** Its loopback URL (`http://127.0.0.1:<port>/token`). */
  readonly url: string;
  /** Adds the server's REST URL to the endpoint file, once it listens (for the CLI's operator commands). */
  announce(serverUrl: string): void;
  /** Stops listening and removes the endpoint file. */
  close(): Promise<void>;
}

export interface LocalTokenServerOptions {
  /** The embedded engine's data directory (the one the server holds the lock of). */
  readonly dataDir: string;
  /** The server's local issuer. */
  readonly minter: Pick<LocalIssuer, 'mint'>;
}

/**
 * Starts the local token endpoint of a server running the embedded engine:
 * a listener of its own on 127.0.0.1 with a random port, so it is never on
 * the network whatever HOST the REST interface listens on, and a fresh
 * random secret written with the URL to the 0600 endpoint file in the data
 * directory. `taskqueue token` reads the file and asks this endpoint to mint
 * while the server holds the data directory. The file goes when the server
 * closes it, or when the process exits.
 */
export async function startLocalTokenServer(options: LocalTokenServerOptions): Promise<LocalTokenServer> {
  const secret = randomBytes(32).toString('base64url');
  const app = createLocalTokenApp({ minter: options.minter, secret });
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/token`;
  writeTokenEndpointFile(options.dataDir, { pid: process.pid, url, secret });
  const removeFile = () => removeTokenEndpointFile(options.dataDir, secret);
  process.on('exit', removeFile);
  let closed: Promise<void> | null = null;
  return {
    url,
    announce(serverUrl) {
      if (closed === null) writeTokenEndpointFile(options.dataDir, { pid: process.pid, url, secret, serverUrl });
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        process.off('exit', removeFile);
        removeFile();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
