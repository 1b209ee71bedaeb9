import type { TaskLeaseRef } from '../core/task-queue.js';
import { TASK_NAME_PATTERN } from '../core/task.js';
import { invalidParameter } from './http-error.js';

/**
 * List pages are keyset pages in (ETA, name) order, so the token is just
 * the position after the last task shown: its ETA in microseconds and its
 * name, base64url-encoded so clients treat it as opaque. A version prefix
 * lets the format change later without misreading old tokens.
 */
export function encodePageToken(last: TaskLeaseRef): string {
  return Buffer.from(`1:${last.etaUsec}:${last.name}`).toString('base64url');
}

/** The position a page token names; 400 naming `parameter` when it was not made by encodePageToken. */
export function decodePageToken(token: string, parameter: string): TaskLeaseRef {
  const text = /^[A-Za-z0-9_-]{1,800}$/.test(token) ? Buffer.from(token, 'base64url').toString('utf8') : '';
  const match = /^1:([0-9]{1,16}):(.*)$/s.exec(text);
  const etaUsec = Number(match?.[1]);
  const name = match?.[2] ?? '';
  if (!match || !Number.isSafeInteger(etaUsec) || !TASK_NAME_PATTERN.test(name)) {
    throw invalidParameter(parameter, `Invalid value for parameter ${parameter}: not a page token this server issued`);
  }
  return { etaUsec, name };
}
