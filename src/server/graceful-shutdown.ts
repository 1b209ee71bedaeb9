import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../core/logger.js';

/** How a shutdown went. */
export interface ShutdownReport {
  /** From the call to the service closed. */
  readonly ms: number;
  /** Connections still open when the grace period ran out (closed by force). */
  readonly forcedConnections: number;
}

/** While shutting down, how often connections that went idle are closed. */
const IDLE_SWEEP_MS = 50;

/** The open connections of a server, kept up to date, so a shutdown can count and close what is left. */
export function trackConnections(server: Server): ReadonlySet<Socket> {
  const connections = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  return connections;
}

/**
 * Graceful shutdown, once however often it is asked for: `stopping` is
 * aborted (pending long-poll leases answer at once, responses say
 * `Connection: close`, /readyz says stopping); the server stops accepting
 * and closes idle connections as they go idle; after `graceMs` it closes
 * whatever connections remain; then `closers` run in order (console,
 * token server, service). `drain` starts with the shutdown (push dispatch:
 * it claims nothing more, and its requests in flight share the grace) and
 * is awaited before the closers.
 */
export function gracefulShutdown(options: {
  readonly server: Server;
  readonly connections: ReadonlySet<Socket>;
  readonly stopping: AbortController;
  readonly logger: Logger;
  readonly closers: readonly (() => Promise<void> | undefined)[];
  readonly drain?: (graceMs: number) => Promise<void>;
}): (graceMs: number) => Promise<ShutdownReport> {
  const { server, connections, stopping, logger } = options;
  let shuttingDown: Promise<ShutdownReport> | null = null;
  return (graceMs) => {
    shuttingDown ??= (async () => {
      const started = Date.now();
      stopping.abort();
      const drained = options.drain?.(graceMs);
      const allClosed = new Promise<void>((done) => server.close(() => done()));
      server.closeIdleConnections();
      // Connections whose last response went out before the signal (so
      // without `Connection: close`) go idle later: close them as they do.
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'grace over'>((done) => (timer = setTimeout(() => done('grace over'), graceMs)));
      const outcome = await Promise.race([allClosed, graceOver]);
      clearInterval(sweep);
      clearTimeout(timer);
      let forcedConnections = 0;
      if (outcome === 'grace over') {
        forcedConnections = connections.size;
        logger.warn(
          { connections: forcedConnections, graceSeconds: graceMs / 1000 },
          'grace period over: closing the remaining connections',
        );
        server.closeAllConnections();
        for (const socket of connections) socket.destroy();
        await allClosed;
      }
      await drained;
      for (const close of options.closers) await close();
      return { ms: Date.now() - started, forcedConnections };
    })();
    return shuttingDown;
  };
}
