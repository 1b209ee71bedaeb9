import { QueueError } from '../core/errors.js';
import type { LeaseRate } from '../core/queue-config.js';

/** `<calls>/<unit>`: whole calls only, because a lease call cannot be split. */
const LEASE_RATE_PATTERN = /^([0-9]+)\/([smhd])$/;

const WINDOW_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };

/**
 * Parses the `<lease-rate>` extension: `20/s`, `600/m`, `5/h`, `1/d`, or
 * `unlimited` (returned as null). Unlike App Engine's push `<rate>`, fractions
 * and `0` are rejected: a lease rate that lets no call through would make a
 * pull queue silently useless, which is almost certainly a mistake.
 *
 * Throws QueueError INVALID_CONFIG whose message is a predicate ("must be ...,
 * got ...") so callers can prefix it with the element's name.
 */
export function parseLeaseRate(text: string): LeaseRate | null {
  if (text === 'unlimited') return null;
  const match = LEASE_RATE_PATTERN.exec(text);
  const digits = match?.[1];
  const unit = match?.[2];
  const windowSeconds = unit === undefined ? undefined : WINDOW_SECONDS[unit];
  if (digits === undefined || windowSeconds === undefined) {
    throw new QueueError(
      'INVALID_CONFIG',
      `must be a rate such as "20/s", "600/m", "5/h" or "1/d", or "unlimited", got "${text}"`,
      { value: text },
    );
  }
  const calls = Number(digits);
  if (!Number.isSafeInteger(calls) || calls < 1) {
    throw new QueueError(
      'INVALID_CONFIG',
      `must allow a positive whole number of calls (at most ${Number.MAX_SAFE_INTEGER}), got "${text}"`,
      { value: text },
    );
  }
  return { calls, windowSeconds };
}
