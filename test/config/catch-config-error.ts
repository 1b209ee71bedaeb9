import { expect } from 'vitest';
import { QueueError, isQueueError } from '../../src/core/errors.js';

/** Runs `fn`, asserts it throws a QueueError INVALID_CONFIG, and returns it for further checks. */
export function catchConfigError(fn: () => unknown): QueueError {
  try {
    fn();
  } catch (error) {
    expect(isQueueError(error, 'INVALID_CONFIG'), String(error)).toBe(true);
    return error as QueueError;
  }
  throw new Error('expected an INVALID_CONFIG error, but nothing was thrown');
}

/** Async variant of catchConfigError. */
export async function catchConfigErrorAsync(fn: () => Promise<unknown>): Promise<QueueError> {
  try {
    await fn();
  } catch (error) {
    expect(isQueueError(error, 'INVALID_CONFIG'), String(error)).toBe(true);
    return error as QueueError;
  }
  throw new Error('expected an INVALID_CONFIG error, but nothing was thrown');
}
