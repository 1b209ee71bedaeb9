/**
 * Wall-clock time in an IANA time zone, with Intl only (no time-zone
 * library): the local fields of an instant, and the instant of a local time
 * with App Engine's daylight-saving rules (a local time skipped by a
 * spring-forward fires at the first instant after the gap; a local time
 * that happens twice fires at its first occurrence).
 */

/** A local date and time; month 1-12, day 1-31, weekday 0 = Sunday. */
export interface LocalDateTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly weekday: number;
}

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * The canonical spelling of an IANA zone name, or undefined when Intl does
 * not know it. Names are matched as Intl matches them (case-insensitively),
 * so `europe/paris` is `Europe/Paris`.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.trim() === '' || name !== name.trim()) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The local fields of an instant (epoch milliseconds) in a zone. */
export function localDateTime(epochMs: number, timeZone: string): LocalDateTime {
  const fields: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(epochMs))) fields[part.type] = part.value;
  const yearOfEra = Number(fields.year);
  const year = fields.era === 'BC' || fields.era === 'B' ? 1 - yearOfEra : yearOfEra;
  const month = Number(fields.month);
  const day = Number(fields.day);
  return {
    year,
    month,
    day,
    hour: Number(fields.hour),
    minute: Number(fields.minute),
    second: Number(fields.second),
    weekday: weekdayOf(year, month, day),
  };
}

/** Day of the week of a calendar date: 0 = Sunday. */
export function weekdayOf(year: number, month: number, day: number): number {
  return new Date(utcMs(year, month, day, 0, 0)).getUTCDay();
}

/** Days in a month of the proleptic Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  return new Date(utcMs(year, month + 1, 0, 0, 0)).getUTCDate();
}

/** The wall-clock reading of an instant as if it were UTC, to the second. */
function wallMs(epochMs: number, timeZone: string): number {
  const t = localDateTime(epochMs, timeZone);
  return utcMs(t.year, t.month, t.day, t.hour, t.minute) + t.second * 1000;
}

/** Milliseconds of a UTC date and time; tolerant of day 0 and month 13 as Date.UTC is. */
function utcMs(year: number, month: number, day: number, hour: number, minute: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, 0, 0);
  return date.getTime();
}

/**
 * The instant at which a zone's clocks read the given local date and time
 * (seconds 0). When the clocks read it twice (autumn), the first; when they
 * skip it (spring), the first instant after the gap, so a job set in the
 * gap still fires that day.
 */
export function instantOfLocal(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  timeZone: string,
): number {
  const wanted = utcMs(year, month, day, hour, minute);
  // Offsets in force around the wanted time; a transition within a day of it shows both.
  const offsets = new Set<number>();
  for (const probe of [wanted - MS_PER_DAY, wanted, wanted + MS_PER_DAY]) {
    offsets.add(wallMs(probe, timeZone) - probe);
  }
  const candidates = [...offsets]
    .map((offset) => wanted - offset)
    .filter((instant) => wallMs(instant, timeZone) === wanted)
    .sort((a, b) => a - b);
  if (candidates[0] !== undefined) return candidates[0];
  // Skipped: the wall clock jumps over `wanted`. Between the instant read
  // with the larger offset (before the jump) and the one read with the
  // smaller, find the first whose reading is at or past `wanted`.
  const sorted = [...offsets].sort((a, b) => a - b);
  let low = wanted - (sorted[sorted.length - 1] ?? 0);
  let high = wanted - (sorted[0] ?? 0);
  if (low >= high) throw new Error(`no instant reads ${new Date(wanted).toISOString().slice(0, 16)} in ${timeZone}`);
  // Invariant: wall(low) < wanted <= wall(high). Transitions fall on whole seconds.
  while (high - low > 1000) {
    const middle = low + Math.floor((high - low) / 2000) * 1000;
    if (wallMs(middle, timeZone) < wanted) low = middle;
    else high = middle;
  }
  return high;
}

/** The instant rounded down to its minute. */
export function floorToMinute(epochMs: number): number {
  return Math.floor(epochMs / MS_PER_MINUTE) * MS_PER_MINUTE;
}
