import { describe, expect, it } from 'vitest';
import { compileSchedule, nextFirings } from '../../src/cron/compile-schedule.js';

/** The next `expected.length` firings of a schedule after a fixed instant, as ISO UTC minutes. */
function firings(schedule: string, timeZone: string, from: string, count: number): string[] {
  return nextFirings(compileSchedule(schedule, { timeZone }), new Date(from), count).map(
    (d) => d.toISOString().slice(0, 16) + 'Z',
  );
}

/**
 * App Engine's documented examples (cron.yaml reference, and the SDK's
 * grammar notes), each from a fixed clock, with firings across month ends
 * and leap days, worked out by hand from the calendar.
 */
const DOCUMENTED: ReadonlyArray<
  readonly [schedule: string, timeZone: string, from: string, expected: readonly string[]]
> = [
  // End-time interval: N after the previous firing, on the minute; across the end of February.
  ['every 12 hours', 'UTC', '2026-02-27T12:00:30Z', ['2026-02-28T00:00Z', '2026-02-28T12:00Z', '2026-03-01T00:00Z']],
  ['every 24 hours', 'UTC', '2026-02-28T06:00:00Z', ['2026-03-01T06:00Z', '2026-03-02T06:00Z']],
  ['every 24 hours', 'UTC', '2028-02-28T06:00:00Z', ['2028-02-29T06:00Z', '2028-03-01T06:00Z']],
  ['every 1 mins', 'UTC', '2026-12-31T23:58:59Z', ['2026-12-31T23:59Z', '2027-01-01T00:00Z']],
  // Start-time intervals: on the window's grid, the end included, then the next day's start.
  [
    'every 5 minutes from 10:00 to 14:00',
    'UTC',
    '2026-02-28T13:52:00Z',
    ['2026-02-28T13:55Z', '2026-02-28T14:00Z', '2026-03-01T10:00Z', '2026-03-01T10:05Z'],
  ],
  [
    'every 2 hours from 10:00 to 14:00',
    'UTC',
    '2026-01-31T09:00:00Z',
    ['2026-01-31T10:00Z', '2026-01-31T12:00Z', '2026-01-31T14:00Z', '2026-02-01T10:00Z'],
  ],
  [
    'every 10 mins from 23:50 to 00:10',
    'UTC',
    '2026-01-31T23:45:00Z',
    ['2026-01-31T23:50Z', '2026-02-01T00:00Z', '2026-02-01T00:10Z', '2026-02-01T23:50Z'],
  ],
  [
    'every 2 hours synchronized',
    'UTC',
    '2026-02-28T21:30:00Z',
    ['2026-02-28T22:00Z', '2026-03-01T00:00Z', '2026-03-01T02:00Z'],
  ],
  [
    'every 45 mins synchronized',
    'UTC',
    '2026-02-28T23:00:00Z',
    ['2026-02-28T23:15Z', '2026-03-01T00:00Z', '2026-03-01T00:45Z'],
  ],
  // Specific times.
  ['every day 00:00', 'UTC', '2028-02-28T12:00:00Z', ['2028-02-29T00:00Z', '2028-03-01T00:00Z']],
  ['every monday 09:00', 'UTC', '2026-02-27T12:00:00Z', ['2026-03-02T09:00Z', '2026-03-09T09:00Z']],
  ['every monday 09:00', 'Australia/NSW', '2026-02-27T12:00:00Z', ['2026-03-01T22:00Z', '2026-03-08T22:00Z']],
  // March 2026 starts on a Sunday, March 2027 on a Monday.
  [
    '2nd,third mon,wed,thu of march 17:00',
    'UTC',
    '2026-01-01T00:00:00Z',
    [
      '2026-03-09T17:00Z',
      '2026-03-11T17:00Z',
      '2026-03-12T17:00Z',
      '2026-03-16T17:00Z',
      '2026-03-18T17:00Z',
      '2026-03-19T17:00Z',
      '2027-03-08T17:00Z',
    ],
  ],
  [
    '1st monday of sep,oct,nov 17:00',
    'UTC',
    '2026-01-01T00:00:00Z',
    ['2026-09-07T17:00Z', '2026-10-05T17:00Z', '2026-11-02T17:00Z', '2027-09-06T17:00Z'],
  ],
  [
    '1st,third mon,wed of sep,oct,nov 17:00',
    'UTC',
    '2026-08-31T00:00:00Z',
    ['2026-09-02T17:00Z', '2026-09-07T17:00Z', '2026-09-16T17:00Z', '2026-09-21T17:00Z'],
  ],
  ['2nd wednesday of month 00:00', 'UTC', '2026-01-14T00:00:00Z', ['2026-02-11T00:00Z', '2026-03-11T00:00Z']],
  [
    '1 of jan,april,july,oct 00:00',
    'UTC',
    '2026-02-27T00:00:00Z',
    ['2026-04-01T00:00Z', '2026-07-01T00:00Z', '2026-10-01T00:00Z', '2027-01-01T00:00Z'],
  ],
  [
    '1,15 of jan,jul 09:30',
    'UTC',
    '2026-01-15T09:30:00Z',
    ['2026-07-01T09:30Z', '2026-07-15T09:30Z', '2027-01-01T09:30Z'],
  ],
  [
    '1st,3rd monday of month 15:30',
    'UTC',
    '2026-02-27T00:00:00Z',
    ['2026-03-02T15:30Z', '2026-03-16T15:30Z', '2026-04-06T15:30Z'],
  ],
  [
    'every wed,fri of jan,jun 13:15',
    'UTC',
    '2026-01-29T14:00:00Z',
    ['2026-01-30T13:15Z', '2026-06-03T13:15Z', '2026-06-05T13:15Z'],
  ],
  [
    'first sunday of quarter 00:00',
    'UTC',
    '2026-02-27T00:00:00Z',
    ['2026-04-05T00:00Z', '2026-07-05T00:00Z', '2026-10-04T00:00Z'],
  ],
  // Month ends and leap days: days a month lacks are skipped, not moved.
  ['31 of jan,feb,mar,apr 08:00', 'UTC', '2026-01-31T09:00:00Z', ['2026-03-31T08:00Z', '2027-01-31T08:00Z']],
  ['29 of feb 12:00', 'UTC', '2026-01-01T00:00:00Z', ['2028-02-29T12:00Z', '2032-02-29T12:00Z']],
  ['5th fri of month 10:00', 'UTC', '2026-01-01T00:00:00Z', ['2026-01-30T10:00Z', '2026-05-29T10:00Z']],
  // The only 5th Monday of February in decades: 2044 and 2072 are leap years whose February starts on a Monday.
  ['5th mon of feb 12:00', 'UTC', '2026-01-01T00:00:00Z', ['2044-02-29T12:00Z', '2072-02-29T12:00Z']],
];

describe('next firings of App Engine schedules (fixed clock)', () => {
  it.each(DOCUMENTED)('%s in %s after %s', (schedule, timeZone, from, expected) => {
    expect(firings(schedule, timeZone, from, expected.length)).toEqual(expected);
  });

  it('fires strictly after the instant given, also when it is a firing itself', () => {
    expect(firings('every day 09:00', 'UTC', '2026-05-01T09:00:00Z', 1)).toEqual(['2026-05-02T09:00Z']);
    expect(firings('every 5 minutes from 10:00 to 14:00', 'UTC', '2026-05-01T10:05:00Z', 1)).toEqual([
      '2026-05-01T10:10Z',
    ]);
    expect(firings('every 5 minutes from 10:00 to 14:00', 'UTC', '2026-05-01T14:00:00Z', 1)).toEqual([
      '2026-05-02T10:00Z',
    ]);
  });
});

/**
 * Daylight saving in two zones. New York, 2026: clocks go 02:00 EST -> 03:00
 * EDT on 8 March and 02:00 EDT -> 01:00 EST on 1 November. Sydney, 2026:
 * 03:00 AEDT -> 02:00 AEST on 5 April and 02:00 AEST -> 03:00 AEDT on 4
 * October. A skipped local time fires at the first instant after the gap;
 * a repeated one fires once, at its first occurrence.
 */
const DAYLIGHT_SAVING: ReadonlyArray<
  readonly [schedule: string, timeZone: string, from: string, expected: readonly string[]]
> = [
  // 02:30 does not exist on 8 March: 03:00 EDT (07:00Z) instead; then 02:30 EDT.
  ['every day 02:30', 'America/New_York', '2026-03-07T12:00:00Z', ['2026-03-08T07:00Z', '2026-03-09T06:30Z']],
  // 01:30 happens twice on 1 November: once, at 01:30 EDT (05:30Z); then 01:30 EST.
  ['every day 01:30', 'America/New_York', '2026-10-31T12:00:00Z', ['2026-11-01T05:30Z', '2026-11-02T06:30Z']],
  // Between the two 01:30s: the second one is not a firing.
  ['every day 01:30', 'America/New_York', '2026-11-01T05:45:00Z', ['2026-11-02T06:30Z']],
  ['2nd sunday of march 02:15', 'America/New_York', '2026-01-01T00:00:00Z', ['2026-03-08T07:00Z', '2027-03-14T07:00Z']],
  // A window across the change counts real time from its start: 00:00, 01:00, 03:00 and 04:00 local in spring...
  [
    'every 1 hours from 00:00 to 04:00',
    'America/New_York',
    '2026-03-08T04:30:00Z',
    ['2026-03-08T05:00Z', '2026-03-08T06:00Z', '2026-03-08T07:00Z', '2026-03-08T08:00Z', '2026-03-09T04:00Z'],
  ],
  // ...and 00:00, 01:00 EDT, 01:00 EST, 02:00, 03:00 and 04:00 in autumn.
  [
    'every 1 hours from 00:00 to 04:00',
    'America/New_York',
    '2026-11-01T03:30:00Z',
    [
      '2026-11-01T04:00Z',
      '2026-11-01T05:00Z',
      '2026-11-01T06:00Z',
      '2026-11-01T07:00Z',
      '2026-11-01T08:00Z',
      '2026-11-01T09:00Z',
      '2026-11-02T05:00Z',
    ],
  ],
  ['every sunday 02:30', 'Australia/Sydney', '2026-10-01T00:00:00Z', ['2026-10-03T16:00Z', '2026-10-10T15:30Z']],
  ['every day 02:30', 'Australia/Sydney', '2026-04-04T00:00:00Z', ['2026-04-04T15:30Z', '2026-04-05T16:30Z']],
  ['every day 02:30', 'Australia/Sydney', '2026-04-04T15:45:00Z', ['2026-04-05T16:30Z']],
  // Synchronized: from local midnight, 6 h of real time apart, until the next local midnight.
  [
    'every 6 hours synchronized',
    'Australia/Sydney',
    '2026-10-03T13:00:00Z',
    [
      '2026-10-03T14:00Z',
      '2026-10-03T20:00Z',
      '2026-10-04T02:00Z',
      '2026-10-04T08:00Z',
      '2026-10-04T13:00Z',
      '2026-10-04T19:00Z',
    ],
  ],
  // An end-time interval is real time: the change does not move it.
  ['every 60 minutes', 'America/New_York', '2026-11-01T05:00:00Z', ['2026-11-01T06:00Z', '2026-11-01T07:00Z']],
];

describe('daylight saving (fixed clock, two zones)', () => {
  it.each(DAYLIGHT_SAVING)('%s in %s after %s', (schedule, timeZone, from, expected) => {
    expect(firings(schedule, timeZone, from, expected.length)).toEqual(expected);
  });
});

describe('five-field cron expressions (extension)', () => {
  it.each<readonly [string, string, string, readonly string[]]>([
    ['30 9 * * 1-5', 'UTC', '2026-02-27T12:00:00Z', ['2026-03-02T09:30Z', '2026-03-03T09:30Z']],
    ['0 0 29 2 *', 'UTC', '2026-01-01T00:00:00Z', ['2028-02-29T00:00Z', '2032-02-29T00:00Z']],
    ['0 12 L * *', 'UTC', '2026-01-31T13:00:00Z', ['2026-02-28T12:00Z', '2026-03-31T12:00Z']],
    ['0 8 1,15 jan,jul *', 'UTC', '2026-01-15T08:00:00Z', ['2026-07-01T08:00Z', '2026-07-15T08:00Z']],
    // Day of month OR day of week, as Vixie cron: the 13th, and every Friday.
    ['0 0 13 * fri', 'UTC', '2026-02-01T00:00:00Z', ['2026-02-06T00:00Z', '2026-02-13T00:00Z', '2026-02-20T00:00Z']],
    ['@daily', 'UTC', '2026-02-28T10:00:00Z', ['2026-03-01T00:00Z']],
    ['@hourly', 'UTC', '2026-02-28T23:10:00Z', ['2026-03-01T00:00Z']],
    // Daylight saving as for App Engine schedules: the skipped 02:30 fires at 03:00, the repeated 01:30 once.
    ['30 2 * * *', 'America/New_York', '2026-03-07T12:00:00Z', ['2026-03-08T07:00Z', '2026-03-09T06:30Z']],
    ['30 1 * * *', 'America/New_York', '2026-10-31T12:00:00Z', ['2026-11-01T05:30Z', '2026-11-02T06:30Z']],
    ['30 2 * * 0', 'Australia/Sydney', '2026-10-01T00:00:00Z', ['2026-10-03T16:00Z', '2026-10-10T15:30Z']],
    // A wildcard hour is an interval: every real half hour, in both passes of the repeated hour.
    [
      '*/30 * * * *',
      'America/New_York',
      '2026-11-01T05:10:00Z',
      ['2026-11-01T05:30Z', '2026-11-01T06:00Z', '2026-11-01T06:30Z'],
    ],
  ])('%s in %s after %s', (schedule, timeZone, from, expected) => {
    expect(compileSchedule(schedule, { timeZone }).syntax).toBe('cron');
    expect(firings(schedule, timeZone, from, expected.length)).toEqual(expected);
  });
});
