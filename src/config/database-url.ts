import { QueueError } from '../core/errors.js';
import { redactDatabaseUrl } from '../core/redact-database-url.js';

/**
 * Checks that DATABASE_URL is a PostgreSQL URL (`postgres://` or
 * `postgresql://`) before anything connects, so a typo fails at start with a
 * message naming the variable. The message never contains the password: a
 * URL that does not parse is not echoed at all (its password could not be
 * told apart), one that parses is shown redacted.
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
    throw new QueueError(
      'INVALID_CONFIG',
      `DATABASE_URL must be a PostgreSQL URL (postgres:// or postgresql://), got ${redactDatabaseUrl(text)}`,
      { field: 'DATABASE_URL' },
    );
  }
  return text;
}
