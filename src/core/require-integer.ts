import { QueueError } from './errors.js';

/**
 * `value` when it is an integer from `min` to `max`; else INVALID_REQUEST
 * naming the field (and the queue, when given).
 */
export function requireIntegerIn(value: unknown, field: string, min: number, max: number, queue?: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new QueueError('INVALID_REQUEST', `${field} must be an integer from ${min} to ${max}, got ${String(value)}`, {
      ...(queue === undefined ? {} : { queue }),
      field,
    });
  }
  return value;
}
