import type { RequestCredentials } from './access-control.js';
import { invalidRequest } from './auth-errors.js';

/**
 * RFC 6750 §2.1 `b64token`: the characters a bearer token may use. A token
 * outside it is a malformed request, not a bad token: nothing was verified.
 */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Longest token accepted. Real access tokens are well under 4 KiB (a JWT
 * with a few claims is ~1 KiB); the cap keeps hostile input away from the
 * base64 and JSON decoders.
 */
export const MAX_TOKEN_LENGTH = 8192;

/**
 * The bearer token a request carries, or null when it carries none.
 *
 * - `Authorization: Bearer <token>`: the scheme is case-insensitive (RFC
 *   7235 §2.1), so `bearer x` works; any amount of spaces may follow it.
 * - `oauth_token=<token>`: the discovery document's query parameter.
 * - Both at once: RFC 6750 §2 says a client MUST NOT use more than one
 *   method, and §3.1 makes it `invalid_request` (HTTP 400).
 *
 * An Authorization header of another scheme (Basic, …) carries no bearer
 * token, so it counts as no credentials. The token is never logged or put
 * into an error message.
 */
export function bearerTokenOf(credentials: RequestCredentials): string | null {
  const fromHeader = fromAuthorization(credentials.authorization);
  const fromQuery = credentials.oauthToken;
  if (fromHeader !== null && fromQuery !== undefined) {
    throw invalidRequest('the access token was sent both in the Authorization header and as oauth_token; use one');
  }
  const token = fromHeader ?? fromQuery ?? null;
  if (token === null) return null;
  if (token.length > MAX_TOKEN_LENGTH) throw invalidRequest('the access token is too long');
  if (!B64TOKEN.test(token)) throw invalidRequest('the access token is malformed');
  return token;
}

/** The token of a Bearer Authorization header; null for no header or another scheme. */
function fromAuthorization(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+)(?: +(.*))?$/.exec(header.trim());
  if (!match) throw invalidRequest('the Authorization header is malformed');
  if (match[1]?.toLowerCase() !== 'bearer') return null;
  const token = match[2]?.trim();
  if (!token) throw invalidRequest('the Authorization header names the Bearer scheme but carries no token');
  return token;
}
