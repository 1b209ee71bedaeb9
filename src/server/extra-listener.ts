import type { Logger } from '../core/logger.js';
import { trackConnections } from './graceful-shutdown.js';
import { listen, type Listening } from './listen.js';

/** A listener beside the main one (App Engine's API protocol), closed with the same grace. */
export interface ExtraListener extends Listening {
  /** Stops accepting, closes connections as they go idle, and after `graceMs` the rest. */
  close(graceMs: number): Promise<void>;
}

/** Serves `fetch` on host:port and logs where, as `what`. */
export async function startExtraListener(
  what: string,
  fetch: (request: Request) => Promise<Response>,
  port: number,
  host: string,
  logger: Logger,
): Promise<ExtraListener> {
  const listening = await listen(fetch, port, host);
  const connections = trackConnections(listening.server);
  logger.info(
    { address: listening.address, url: listening.url },
    `${what} listening on ${listening.address} (${listening.url})`,
  );
  let closing: Promise<void> | null = null;
  return {
    ...listening,
    close(graceMs) {
      closing ??= (async () => {
        const { server } = listening;
        const closed = new Promise<void>((done) => server.close(() => done()));
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        let timer: NodeJS.Timeout | undefined;
        const over = new Promise<'over'>((done) => (timer = setTimeout(() => done('over'), graceMs)));
        if ((await Promise.race([closed, over])) === 'over') {
          server.closeAllConnections();
          for (const socket of connections) socket.destroy();
        }
        clearInterval(sweep);
        clearTimeout(timer);
        await closed;
      })();
      return closing;
    },
  };
}
