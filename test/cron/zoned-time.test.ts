import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, daysInMonth, instantOfLocal, localDateTime, weekdayOf } from '../../src/cron/zoned-time.js';

const iso = (ms: number): string => new Date(ms).toISOString();

describe('zoned time with Intl', () => {
  it('reads the local fields of an instant', () => {
    expect(localDateTime(Date.parse('2026-03-08T07:00:00Z'), 'America/New_York')).toEqual({
      year: 2026,
      month: 3,
      day: 8,
      hour: 3,
      minute: 0,
      second: 0,
      weekday: 0,
    });
    expect(localDateTime(Date.parse('2026-12-31T23:30:15Z'), 'Asia/Kolkata')).toMatchObject({
      year: 2027,
      month: 1,
      day: 1,
      hour: 5,
      minute: 0,
      second: 15,
    });
  });

  it('places ordinary local times', () => {
    expect(iso(instantOfLocal(2026, 1, 15, 9, 30, 'UTC'))).toBe('2026-01-15T09:30:00.000Z');
    expect(iso(instantOfLocal(2026, 7, 1, 9, 30, 'Europe/Paris'))).toBe('2026-07-01T07:30:00.000Z');
    expect(iso(instantOfLocal(2026, 1, 1, 0, 0, 'Asia/Kathmandu'))).toBe('2025-12-31T18:15:00.000Z');
  });

  it('moves a skipped local time to the first instant after the gap', () => {
    expect(iso(instantOfLocal(2026, 3, 8, 2, 30, 'America/New_York'))).toBe('2026-03-08T07:00:00.000Z');
    expect(iso(instantOfLocal(2026, 3, 8, 2, 0, 'America/New_York'))).toBe('2026-03-08T07:00:00.000Z');
    expect(iso(instantOfLocal(2026, 10, 4, 2, 59, 'Australia/Sydney'))).toBe('2026-10-03T16:00:00.000Z');
    // Lord Howe Island moves its clocks by half an hour.
    expect(iso(instantOfLocal(2026, 10, 4, 2, 15, 'Australia/Lord_Howe'))).toBe('2026-10-03T15:30:00.000Z');
  });

  it('takes the first of a repeated local time', () => {
    expect(iso(instantOfLocal(2026, 11, 1, 1, 30, 'America/New_York'))).toBe('2026-11-01T05:30:00.000Z');
    expect(iso(instantOfLocal(2026, 4, 5, 2, 30, 'Australia/Sydney'))).toBe('2026-04-04T15:30:00.000Z');
  });

  it('knows the calendar: weekdays, month lengths, leap years', () => {
    expect(weekdayOf(2026, 3, 1)).toBe(0);
    expect(weekdayOf(2044, 2, 1)).toBe(1);
    expect([
      daysInMonth(2026, 2),
      daysInMonth(2028, 2),
      daysInMonth(2100, 2),
      daysInMonth(2000, 2),
      daysInMonth(2026, 12),
    ]).toEqual([28, 29, 28, 29, 31]);
  });

  it('knows IANA zone names, in any case, and refuses others', () => {
    expect(canonicalTimeZone('Europe/Paris')).toBe('Europe/Paris');
    expect(canonicalTimeZone('europe/paris')).toBe('Europe/Paris');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Australia/NSW')).toBeDefined();
    for (const bad of ['Mars/Olympus_Mons', '', ' UTC', 'Europe/', '+25:00'])
      expect(canonicalTimeZone(bad), bad).toBeUndefined();
  });

  it('always lands on the wanted wall time, or just after a gap that swallowed it (property)', () => {
    const zones = [
      'America/New_York',
      'Australia/Sydney',
      'Europe/London',
      'America/Santiago',
      'Asia/Tehran',
      'Australia/Lord_Howe',
      'Pacific/Chatham',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: 2000, max: 2040 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        (zone, year, month, day, hour, minute) => {
          const instant = instantOfLocal(year, month, day, hour, minute, zone);
          const local = localDateTime(instant, zone);
          if (
            local.year === year &&
            local.month === month &&
            local.day === day &&
            local.hour === hour &&
            local.minute === minute
          ) {
            // The first occurrence: an hour earlier was not the same wall time.
            const before = localDateTime(instant - 3_600_000, zone);
            return !(before.day === day && before.hour === hour && before.minute === minute);
          }
          // Skipped: a second earlier the clock read before the wanted time, now after it.
          const previous = localDateTime(instant - 1000, zone);
          const wanted = Date.UTC(year, month - 1, day, hour, minute);
          const readNow = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
          const readBefore = Date.UTC(
            previous.year,
            previous.month - 1,
            previous.day,
            previous.hour,
            previous.minute,
            previous.second,
          );
          return readBefore < wanted && readNow > wanted;
        },
      ),
      { numRuns: 500 },
    );
  });
});
