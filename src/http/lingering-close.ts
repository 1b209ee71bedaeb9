import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** At most this many bytes of a request body are read and thrown away after an early answer. */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;
/** For at most this long. */
export const LINGER_MAX_MS = 2000;

export interface LingerBounds {
  readonly maxBytes?: number;
  readonly maxMs?: number;
}

/**
 * A lingering close for answers sent before the request body was read: a
 * 404/401 decided from the URL and headers, a 413 for a body over the cap.
 * Closing the socket then, with the client's bytes still arriving, makes
 * the kernel send a reset, and a client still writing gets EPIPE or
 * ECONNRESET instead of the answer. So the rest of the body is read and
 * discarded (never buffered), up to `maxBytes` or `maxMs`; then the
 * connection closes if the answer said `Connection: close` (or stays open
 * for the next request if it did not); past a bound it is destroyed.
 *
 * It replaces @hono/node-server's own clean-up, which gives up after 500 ms:
 * serve with `autoCleanupIncoming: false`.
 */
export function lingerOnEarlyAnswers(server: Server, bounds: LingerBounds = {}): void {
  const maxBytes = bounds.maxBytes ?? LINGER_MAX_BYTES;
  const maxMs = bounds.maxMs ?? LINGER_MAX_MS;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // 'prefinish' comes before Node's own 'finish' handler, which would
    // close a `Connection: close` socket at once.
    res.once('prefinish', () => {
      if (!req.complete && !req.destroyed) linger(req, res, maxBytes, maxMs);
    });
  });
}

/** Node's flag for "close the connection after this response" (set from the Connection header). */
interface LastFlag {
  _last?: boolean;
}

function linger(req: IncomingMessage, res: ServerResponse, maxBytes: number, maxMs: number): void {
  const socket = req.socket;
  const flagged = res as unknown as LastFlag;
  const closeAfter = flagged._last === true;
  // Node would destroy the socket when the response finishes: the close is ours now, after the body.
  if (closeAfter) flagged._last = false;
  let discarded = 0;
  const done = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    socket.off('close', done);
  };
  const giveUp = (): void => {
    done();
    socket.destroy();
  };
  const onData = (chunk: Buffer): void => {
    discarded += chunk.byteLength;
    if (discarded > maxBytes) giveUp();
  };
  const onEnd = (): void => {
    done();
    // The whole request is read: closing now sends no reset.
    if (closeAfter) socket.end(() => socket.destroy());
  };
  const timer = setTimeout(giveUp, maxMs);
  timer.unref();
  req.on('data', onData);
  req.once('end', onEnd);
  socket.once('close', done);
  req.resume();
}
