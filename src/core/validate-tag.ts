import { QueueError } from './errors.js';
import { LIMITS } from './limits.js';

/** An unpaired UTF-16 surrogate: not Unicode text, and not storable as it was given. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Checks a tag: a string of at most 500 UTF-8 bytes that PostgreSQL can
 * store as given (text cannot hold NUL, and a lone surrogate would be
 * replaced when encoded). Returns null for "no tag" (undefined, null or "").
 */
export function validateTag(tag: unknown, details: Record<string, unknown>): string | null {
  if (tag === undefined || tag === null || tag === '') return null;
  if (typeof tag !== 'string') throw new QueueError('INVALID_TAG', 'tag must be a string', details);
  if (tag.includes('\u0000') || LONE_SURROGATE.test(tag)) {
    throw new QueueError('INVALID_TAG', 'tag must be valid Unicode text without NUL characters', details);
  }
  const bytes = Buffer.byteLength(tag, 'utf8');
  if (bytes > LIMITS.maxTagBytes) {
    throw new QueueError('INVALID_TAG', `tag must be <= ${LIMITS.maxTagBytes} bytes, got a ${bytes} byte tag`, details);
  }
  return tag;
}
