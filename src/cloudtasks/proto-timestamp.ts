import { QueueError } from '../core/errors.js';

/**
 * google.protobuf.Timestamp in proto3 JSON: RFC 3339 with a `Z` or an
 * offset and up to 9 decimals on read; UTC with 0, 3, 6 or 9 decimals on
 * write, as Google's servers answer. The service keeps microseconds
 * (PostgreSQL's resolution), so a Date plus the microseconds below its
 * millisecond carry a value through.
 */
export interface ProtoTimestamp {
  /** The instant to the millisecond. */
  readonly date: Date;
  /** Nanoseconds below the millisecond (0..999,999). */
  readonly subMillisNanos: number;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;
/** proto3's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z. */
const MIN_MILLIS = new Date(0).setUTCFullYear(1, 0, 1);
const MAX_MILLIS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export function parseTimestamp(text: unknown, field: string): ProtoTimestamp {
  const match = typeof text === 'string' ? TIMESTAMP.exec(text) : null;
  const refuse = (why: string): never => {
    throw new QueueError(
      'INVALID_REQUEST',
      `Invalid value at '${field}' (type.googleapis.com/google.protobuf.Timestamp), ${JSON.stringify(text)}: ${why}`,
      { field },
    );
  };
  if (match === null) return refuse('a timestamp is RFC 3339, such as "2026-12-02T14:00:00.5Z"');
  const [, year, month, day, hour, minute, second, fraction = '', zone] = match as unknown as string[];
  const fields = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = fields;
  const utc = new Date(0);
  utc.setUTCFullYear(y, mo - 1, d);
  utc.setUTCHours(h, mi, s, 0);
  // Date rolls 2026-02-30 over to March: a day or time out of range is refused instead.
  if (
    utc.getUTCFullYear() !== y ||
    utc.getUTCMonth() !== mo - 1 ||
    utc.getUTCDate() !== d ||
    utc.getUTCHours() !== h ||
    utc.getUTCMinutes() !== mi ||
    utc.getUTCSeconds() !== s ||
    y < 1
  ) {
    return refuse('no such date or time');
  }
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const zoneSign = zone!.startsWith('-') ? -1 : 1;
    const [zh, zm] = zone!.slice(1).split(':').map(Number) as [number, number];
    if (zh > 23 || zm > 59) return refuse('no such offset');
    offsetMinutes = zoneSign * (zh * 60 + zm);
  }
  const nanos = Number(fraction.padEnd(9, '0'));
  const millis = utc.getTime() - offsetMinutes * 60_000 + Math.floor(nanos / 1_000_000);
  if (millis < MIN_MILLIS || millis > MAX_MILLIS) return refuse('out of range');
  return { date: new Date(millis), subMillisNanos: nanos % 1_000_000 };
}

/** Writes an instant in UTC as Google's servers do ("2026-12-02T14:00:00.500Z"). */
export function formatTimestamp(date: Date, subMillisNanos = 0): string {
  const iso = date.toISOString(); // always YYYY-MM-DDTHH:MM:SS.mmmZ for years 0..9999
  const base = iso.slice(0, 19);
  const nanos = date.getUTCMilliseconds() * 1_000_000 + subMillisNanos;
  if (nanos === 0) return `${base}Z`;
  let fraction = String(nanos).padStart(9, '0');
  if (nanos % 1_000_000 === 0) fraction = fraction.slice(0, 3);
  else if (nanos % 1_000 === 0) fraction = fraction.slice(0, 6);
  return `${base}.${fraction}Z`;
}
