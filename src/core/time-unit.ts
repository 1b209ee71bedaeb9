import { QueueError } from './errors.js';

/** Units of a lease duration, as Java's TimeUnit names them (either case). */
export type TimeUnit =
  'milliseconds' | 'seconds' | 'minutes' | 'hours' | 'days' | 'MILLISECONDS' | 'SECONDS' | 'MINUTES' | 'HOURS' | 'DAYS';

const MS_PER_UNIT: Record<string, number> = {
  milliseconds: 1,
  seconds: 1000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
};

/** A duration in milliseconds; rejects unknown units and non-finite or negative amounts. */
export function durationToMs(amount: number, unit: TimeUnit | string = 'seconds', field = 'lease'): number {
  const perUnit = MS_PER_UNIT[unit.toLowerCase()];
  if (perUnit === undefined) {
    throw new QueueError(
      'INVALID_REQUEST',
      `${field}: unknown time unit "${unit}" (use seconds, minutes, hours, days or milliseconds)`,
      {
        field,
      },
    );
  }
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) {
    throw new QueueError('INVALID_REQUEST', `${field} must be a finite, non-negative number, got ${String(amount)}`, {
      field,
    });
  }
  return amount * perUnit;
}
