import { QueueError } from '../core/errors.js';

/**
 * google.protobuf.Duration in proto3 JSON, as Cloud Tasks reads and writes
 * it: a decimal number of seconds with an `s` suffix ("3.5s", "600s",
 * "0.100s"). Kept as whole seconds plus nanoseconds, so a value read and
 * written back is the value the caller sent, to the nanosecond.
 */
export interface ProtoDuration {
  readonly seconds: number;
  /** 0..999,999,999, with the sign of `seconds` (proto3's rule). */
  readonly nanos: number;
}

/** proto3's bound: ±10,000 years of seconds. */
const MAX_SECONDS = 315_576_000_000;
const DURATION = /^(-)?(\d{1,12})(?:\.(\d{1,9}))?s$/;

/** Reads "3.5s"; `field` names the request field in the refusal. */
export function parseDuration(text: unknown, field: string): ProtoDuration {
  const match = typeof text === 'string' ? DURATION.exec(text) : null;
  if (match === null) {
    throw new QueueError(
      'INVALID_REQUEST',
      `Invalid value at '${field}' (type.googleapis.com/google.protobuf.Duration), ${JSON.stringify(text)}: ` +
        'a duration is a number of seconds with an "s" suffix and at most 9 decimals, such as "3.5s"',
      { field },
    );
  }
  const sign = match[1] === '-' ? -1 : 1;
  const whole = Number(match[2]);
  const nanos = Number((match[3] ?? '').padEnd(9, '0'));
  if (whole > MAX_SECONDS) {
    throw new QueueError('INVALID_REQUEST', `Invalid value at '${field}': ${text} is beyond ${MAX_SECONDS}s`, {
      field,
    });
  }
  // -0 would print as "-0s" and compare unequal in tests: normalise it.
  return { seconds: sign * whole || 0, nanos: sign * nanos || 0 };
}

/**
 * Writes a duration as Google's servers do: no decimals for whole seconds,
 * else 3, 6 or 9 of them ("0.100s", "0.000001s").
 */
export function formatDuration(duration: ProtoDuration): string {
  const negative = duration.seconds < 0 || duration.nanos < 0;
  const seconds = Math.abs(duration.seconds);
  const nanos = Math.abs(duration.nanos);
  const sign = negative ? '-' : '';
  if (nanos === 0) return `${sign}${seconds}s`;
  let fraction = String(nanos).padStart(9, '0');
  if (nanos % 1_000_000 === 0) fraction = fraction.slice(0, 3);
  else if (nanos % 1_000 === 0) fraction = fraction.slice(0, 6);
  return `${sign}${seconds}.${fraction}s`;
}

/** A duration of a whole number of milliseconds. */
export function durationFromMillis(millis: number): ProtoDuration {
  const whole = Math.trunc(millis / 1000);
  return { seconds: whole, nanos: Math.round((millis - whole * 1000) * 1_000_000) || 0 };
}

/** Milliseconds, rounded to the nearest one (the service's own resolution). */
export function durationToMillis(duration: ProtoDuration): number {
  return duration.seconds * 1000 + Math.round(duration.nanos / 1_000_000);
}
