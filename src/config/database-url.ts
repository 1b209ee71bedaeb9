import { QueueError } from '../core/errors.js';

/** Schemes a mistaken DATABASE_URL commonly has, safe to name in the refusal. */
const KNOWN_SCHEMES = new Set([
  'mysql:',
  'mariadb:',
  'sqlite:',
  'file:',
  'http:',
  'https:',
  'redis:',
  'mongodb:',
  'jdbc:',
  'tcp:',
  'pg:',
]);

/**
 * Checks that DATABASE_URL is a PostgreSQL URL (`postgres://` or
 * `postgresql://`) before anything connects, so a typo fails at start with a
 * message naming the variable. The message never contains the value (it
 * may hold a password): at most a well-known wrong scheme is named.
 */
export function checkDatabaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new QueueError(
      'INVALID_CONFIG',
      'DATABASE_URL does not parse as a URL; expected postgres://USER:PASSWORD@HOST:PORT/DATABASE (the value is not shown: it may hold a password)',
      { field: 'DATABASE_URL' },
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    // `user:secret@host/db` parses too, as scheme `user:` with the secret in
    // the path: only a scheme known to be one is named, nothing else is shown.
    const scheme = KNOWN_SCHEMES.has(url.protocol)
      ? `a ${url.protocol}// URL`
      : 'something else (not shown: it may hold a password)';
    throw new QueueError(
      'INVALID_CONFIG',
      `DATABASE_URL must be a PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE or postgresql://...), got ${scheme}`,
      { field: 'DATABASE_URL' },
    );
  }
  return text;
}
