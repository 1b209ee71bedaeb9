import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context } from 'hono';
import { isQueueError } from '../core/errors.js';
import type { LocalIssuer } from './local-issuer.js';

/** The header a mint request carries its secret in. */
export const LOCAL_SECRET_HEADER = 'x-taskqueue-local-secret';

/** Largest mint request body: an e-mail, a scope and a number. */
const BODY_LIMIT_BYTES = 4096;

export interface LocalTokenAppOptions {
  /** Mints the tokens (the server's local issuer). */
  readonly minter: Pick<LocalIssuer, 'mint'>;
  /** The secret a request must present, as written to the endpoint file. */
  readonly secret: string;
}

/**
 * The server side of `taskqueue token` on the embedded engine: `POST /token`
 * with `{ "email", "scopes"?, "ttlSeconds"? }` answers an OAuth-style token
 * response. Only a request that both comes from a loopback address and
 * carries the secret of the 0600 endpoint file is served: the file makes it
 * "whoever may read the data directory", the loopback check keeps the
 * endpoint off the network even if it is mounted on a public listener.
 * Tokens are never logged; answers are `Cache-Control: no-store` (RFC 6749 §5.1).
 */
export function createLocalTokenApp(options: LocalTokenAppOptions): Hono {
  const expected = digest(options.secret);
  const app = new Hono();
  app.post('/token', async (c) => {
    c.header('Cache-Control', 'no-store');
    if (!fromLoopback(c)) return c.json({ error: 'access_denied', error_description: 'loopback only' }, 403);
    const presented = c.req.header(LOCAL_SECRET_HEADER);
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      return c.json({ error: 'invalid_client', error_description: 'wrong or missing local secret' }, 401);
    }
    const request = await readRequest(c);
    if (typeof request === 'string') return c.json({ error: 'invalid_request', error_description: request }, 400);
    try {
      const minted = await options.minter.mint(request);
      return c.json({
        access_token: minted.accessToken,
        token_type: minted.tokenType,
        expires_in: minted.expiresIn,
        scope: minted.scope,
      });
    } catch (error) {
      if (isQueueError(error, 'INVALID_REQUEST')) {
        return c.json({ error: 'invalid_request', error_description: error.message }, 400);
      }
      const message = isQueueError(error) ? error.message : 'the token could not be minted';
      return c.json({ error: 'temporarily_unavailable', error_description: message }, 503);
    }
  });
  return app;
}

/** The mint request in the body, or a description of what is wrong with it. */
async function readRequest(c: Context): Promise<{ email: string; scopes?: string[]; ttlSeconds?: number } | string> {
  const text = await c.req.text();
  if (Buffer.byteLength(text) > BODY_LIMIT_BYTES) return 'request too large';
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'the body must be JSON';
  }
  if (typeof body !== 'object' || body === null) return 'the body must be a JSON object';
  const { email, scopes, ttlSeconds } = body as Record<string, unknown>;
  if (typeof email !== 'string') return '"email" must be a string';
  if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((s) => typeof s === 'string'))) {
    return '"scopes" must be an array of strings';
  }
  if (ttlSeconds !== undefined && typeof ttlSeconds !== 'number') return '"ttlSeconds" must be a number';
  return {
    email,
    ...(scopes === undefined ? {} : { scopes: scopes as string[] }),
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
  };
}

/** Whether the request's peer is a loopback address; unknown peers are not. */
function fromLoopback(c: Context): boolean {
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    return false;
  }
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return address === '::1';
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
