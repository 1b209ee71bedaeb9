import { QueueError } from '../core/errors.js';

/**
 * App Engine's storage-size syntax (queueinfo.py `_TOTAL_STORAGE_LIMIT_REGEX`),
 * anchored at both ends so that trailing garbage such as `120MB` is rejected
 * instead of silently ignored.
 */
const STORAGE_SIZE_PATTERN = /^([0-9]+(?:\.[0-9]*)?)([BKMGT]?)$/;

/** Bytes per unit; no suffix means bytes, as in App Engine. */
const UNIT_BYTES: Readonly<Record<string, number>> = {
  '': 1,
  B: 1,
  K: 1024,
  M: 1024 ** 2,
  G: 1024 ** 3,
  T: 1024 ** 4,
};

/**
 * Parses a storage size such as `120M` (used by `<total-storage-limit>` and
 * the `<storage-limit>` extension) into bytes. Fractions are allowed
 * (`1.5K` = 1536) and truncated to whole bytes, as App Engine's `int()` does.
 *
 * Throws QueueError INVALID_CONFIG whose message is a predicate ("must be ...,
 * got ...") so callers can prefix it with the element's name.
 */
export function parseStorageSize(text: string): number {
  const match = STORAGE_SIZE_PATTERN.exec(text);
  const digits = match?.[1];
  const unit = match?.[2];
  if (digits === undefined || unit === undefined) {
    throw new QueueError(
      'INVALID_CONFIG',
      `must be a size such as "120M" (a number with an optional B, K, M, G or T suffix), got "${text}"`,
      { value: text },
    );
  }
  const bytes = Math.floor(Number(digits) * (UNIT_BYTES[unit] ?? 1));
  if (!Number.isSafeInteger(bytes)) {
    throw new QueueError('INVALID_CONFIG', `must be at most ${Number.MAX_SAFE_INTEGER} bytes, got "${text}"`, {
      value: text,
      limit: Number.MAX_SAFE_INTEGER,
    });
  }
  return bytes;
}
