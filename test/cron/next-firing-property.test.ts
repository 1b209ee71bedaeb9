import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSchedule } from '../../src/cron/compile-schedule.js';
import { localDateTime } from '../../src/cron/zoned-time.js';

const ZONES = [
  'America/New_York',
  'Australia/Sydney',
  'Europe/London',
  'America/Santiago',
  'Australia/Lord_Howe',
  'UTC',
];
const MINUTE = 60_000;

/**
 * The reference, by brute force over every minute: the first instant after
 * `after` at which the clock reaches the day's hh:mm, either by reading it
 * (the first time that day) or by jumping over it (a gap).
 */
function bruteForceDaily(after: number, hour: number, minute: number, zone: string): number {
  const fired = new Set<string>();
  let before = Number.NEGATIVE_INFINITY;
  // From a day and a bit earlier, so that a day whose hh:mm came at or before `after` is known to have fired.
  for (let t = Math.floor(after / MINUTE) * MINUTE - 26 * 3_600_000; ; t += MINUTE) {
    const local = localDateTime(t, zone);
    const now = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute) / MINUTE;
    const target = Date.UTC(local.year, local.month - 1, local.day, hour, minute) / MINUTE;
    const key = `${local.year}-${local.month}-${local.day}`;
    const reached = now === target || (before < target && now > target);
    before = now;
    if (reached && !fired.has(key)) {
      fired.add(key);
      if (t > after) return t;
    }
  }
}

describe('next firing against a brute-force reference (property)', () => {
  it('every day HH:MM, in zones with whole, half-hour, midnight and southern daylight saving, near the changes', () => {
    // Each zone with the day of a 2026 change and the local hour it skips or repeats
    // (Santiago changes at midnight, Lord Howe by half an hour).
    const changes: ReadonlyArray<readonly [string, string, number]> = [
      ['America/New_York', '2026-03-08', 2],
      ['America/New_York', '2026-11-01', 1],
      ['Australia/Sydney', '2026-04-05', 2],
      ['Australia/Sydney', '2026-10-04', 2],
      ['Europe/London', '2026-03-29', 1],
      ['Europe/London', '2026-10-25', 1],
      ['America/Santiago', '2026-04-05', 23],
      ['America/Santiago', '2026-09-06', 0],
      ['Australia/Lord_Howe', '2026-04-05', 1],
      ['Australia/Lord_Howe', '2026-10-04', 2],
    ];
    const nearAChange = fc
      .tuple(
        fc.constantFrom(...changes),
        fc.integer({ min: -36 * 3600, max: 36 * 3600 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 23 }),
      )
      .map(([[zone, day, changeHour], seconds, atTheChange, anyHour]) => ({
        zone,
        after: Date.parse(`${day}T00:00:00Z`) + seconds * 1000,
        hour: atTheChange ? changeHour : anyHour,
      }));
    const anywhen = fc
      .tuple(
        fc.constantFrom(...ZONES),
        fc.integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2035-01-01T00:00:00Z') }),
        fc.integer({ min: 0, max: 23 }),
      )
      .map(([zone, after, hour]) => ({ zone, after, hour }));
    fc.assert(
      fc.property(
        fc.oneof(nearAChange, nearAChange, anywhen),
        fc.constantFrom(0, 15, 30, 45, 59),
        ({ zone, after, hour: h }, minute) => {
          const text = `every day ${String(h).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
          const next = compileSchedule(text, { timeZone: zone }).next(new Date(after)).getTime();
          expect(new Date(next).toISOString(), `${text} in ${zone} after ${new Date(after).toISOString()}`).toBe(
            new Date(bruteForceDaily(after, h, minute, zone)).toISOString(),
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('firings strictly increase and each is after the instant asked about', () => {
    const schedules = [
      'every 5 minutes from 01:00 to 03:30',
      'every 2 hours synchronized',
      '1st,3rd sun of month 02:30',
      '*/20 1-3 * * *',
      'every 7 mins',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...schedules),
        fc.constantFrom(...ZONES),
        fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2027-01-01T00:00:00Z') }),
        (text, zone, after) => {
          const schedule = compileSchedule(text, { timeZone: zone });
          let previous = after;
          for (let i = 0; i < 10; i += 1) {
            const next = schedule.next(new Date(previous)).getTime();
            expect(next).toBeGreaterThan(previous);
            previous = next;
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
