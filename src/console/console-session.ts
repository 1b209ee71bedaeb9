import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

/** The session cookie: the bearer token the user pasted, HttpOnly so no script can read it. */
export const SESSION_COOKIE = 'taskqueue_console';

/** Where the console lives; the cookie is sent nowhere else. */
export const CONSOLE_PATH = '/console';

/**
 * The session is the token itself, kept in an HttpOnly, SameSite=Strict
 * cookie: every request is verified again by the same access control as
 * REST (so a revoked or expired token ends the session at once), any number
 * of server processes share sessions without a session store, and the
 * cookie expires with the token.
 */
export function sessionToken(c: Context): string | undefined {
  const value = getCookie(c, SESSION_COOKIE);
  return value === undefined || value === '' ? undefined : value;
}

/** Sets the session cookie for `token`, expiring when the token does (a browser-session cookie when the token did not say). */
export function setSessionCookie(c: Context, token: string, expiresAt: number | null, now = Date.now()): void {
  setCookie(c, SESSION_COOKIE, token, {
    path: CONSOLE_PATH,
    httpOnly: true,
    sameSite: 'Strict',
    secure: isHttps(c),
    ...(expiresAt === null ? {} : { maxAge: Math.max(0, Math.floor((expiresAt - now) / 1000)) }),
  });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: CONSOLE_PATH, httpOnly: true, sameSite: 'Strict', secure: isHttps(c) });
}

/** Whether the browser reached us over https (directly, or through a proxy that says so). */
export function isHttps(c: Context): boolean {
  if (new URL(c.req.url).protocol === 'https:') return true;
  const forwarded = c.req.header('x-forwarded-proto');
  return forwarded !== undefined && forwarded.split(',')[0]?.trim().toLowerCase() === 'https';
}

/** Stands in for a token when access control is off: CSRF tokens still need a secret. */
const ANONYMOUS_SECRET = randomBytes(32).toString('base64url');

/**
 * The CSRF token of a session: a hash of its bearer token, so it is bound to
 * the session, needs no storage, and cannot be computed without the token
 * (which a cross-site attacker never sees). Every action form carries it.
 */
export function csrfTokenFor(bearerToken: string | null): string {
  return createHash('sha256')
    .update(`taskqueue console csrf\n${bearerToken ?? ANONYMOUS_SECRET}`)
    .digest('base64url');
}

/** Compares a submitted CSRF token with the session's in constant time. */
export function csrfMatches(submitted: unknown, expected: string): boolean {
  if (typeof submitted !== 'string') return false;
  const a = Buffer.from(submitted);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Refuses requests a browser marks as cross-site (Fetch Metadata), and
 * those whose Origin is not this server's: a second wall behind the CSRF
 * token and SameSite=Strict, and the only one for the sign-in form, which
 * has no session yet.
 */
export function isCrossSite(c: Context): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = c.req.header('origin');
  if (origin === undefined || origin === 'null') return origin === 'null';
  const host = c.req.header('x-forwarded-host')?.split(',')[0]?.trim() ?? c.req.header('host');
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}
