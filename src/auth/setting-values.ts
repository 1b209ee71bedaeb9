import { isEmailAddress } from '../core/is-email-address.js';
import { QueueError } from '../core/errors.js';

/**
 * Strict readers for auth settings. An auth setting that is misspelt must
 * stop the server at start-up: read leniently, `TASKQUEUE_AUTH=of` or an
 * issuer URL with a typo would quietly leave a door open or shut.
 */

/** The INVALID_CONFIG error of one setting, naming it. */
export function settingError(field: string, message: string): QueueError {
  return new QueueError('INVALID_CONFIG', `${field}: ${message}`, { field });
}

/** `on` or `off` (nothing else: `true`, `0`, `no` are refused rather than guessed at). */
export function parseOnOff(field: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw settingError(field, `must be "on" or "off", got "${value}"`);
}

/** A comma-separated list of e-mail addresses; blanks around commas are ignored. */
export function parseEmailList(field: string, value: string | undefined): string[] {
  if (value === undefined) return [];
  const emails = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const email of emails) {
    if (!isEmailAddress(email)) throw settingError(field, `"${email}" is not an e-mail address`);
  }
  return emails;
}

/** An integer in [min, max]; `10abc`, `1.5` and `0x10` are errors. */
export function parseIntegerSetting(field: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < min || number > max) {
    throw settingError(field, `must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return number;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A URL the server will fetch keys or introspection answers from. It must be
 * https, since what comes back decides who gets in; plain http is allowed
 * only to a loopback address (a sidecar, or the tests' fake identity
 * provider).
 */
export function parseFetchUrl(field: string, value: unknown): string {
  if (typeof value !== 'string' || !URL.canParse(value))
    throw settingError(field, `must be a URL, got ${JSON.stringify(value)}`);
  const url = new URL(value);
  const ok = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  if (!ok) throw settingError(field, `must be an https URL (http only to a loopback address), got "${value}"`);
  if (url.username || url.password) throw settingError(field, 'must not carry credentials in the URL');
  return url.href;
}
