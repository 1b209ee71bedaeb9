import { describe, expect, it } from 'vitest';
import { parseAppEngineSchedule, type AppEngineSchedule } from '../../src/cron/app-engine-schedule.js';
import { ScheduleError } from '../../src/cron/schedule-error.js';

const ALL_MONTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const EVERY_ORDINAL = [1, 2, 3, 4, 5];

function specific(fields: Partial<Omit<AppEngineSchedule & { kind: 'specific' }, 'kind'>>): AppEngineSchedule {
  return { kind: 'specific', time: 0, months: ALL_MONTHS, monthDays: [], ordinals: [], weekdays: [], ...fields };
}

function refusal(text: string): ScheduleError {
  try {
    parseAppEngineSchedule(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ScheduleError);
    return error as ScheduleError;
  }
  throw new Error(`"${text}" was accepted`);
}

describe('parseAppEngineSchedule: intervals', () => {
  it.each([
    ['every 12 hours', 720],
    ['every 24 hours', 1440],
    ['every 5 minutes', 5],
    ['every 5 mins', 5],
    ['every 1 mins', 1],
    ['every 99999 minutes', 99999],
    ['every5minutes', 5],
  ])('%s: every %i minutes, counted from the previous firing', (text, minutes) => {
    expect(parseAppEngineSchedule(text)).toEqual({ kind: 'interval', minutes, synchronized: false, window: null });
  });

  it('reads a daily window, which may cross midnight', () => {
    expect(parseAppEngineSchedule('every 5 minutes from 10:00 to 14:00')).toEqual({
      kind: 'interval',
      minutes: 5,
      synchronized: false,
      window: { start: 600, end: 840 },
    });
    expect(parseAppEngineSchedule('every 2 hours from 22:00 to 2:00')).toMatchObject({
      minutes: 120,
      window: { start: 1320, end: 120 },
    });
  });

  it('reads synchronized as the window 00:00 to 23:59', () => {
    expect(parseAppEngineSchedule('every 2 hours synchronized')).toEqual({
      kind: 'interval',
      minutes: 120,
      synchronized: true,
      window: { start: 0, end: 1439 },
    });
    expect(parseAppEngineSchedule('every 24 hours synchronized')).toMatchObject({ minutes: 1440, synchronized: true });
    expect(parseAppEngineSchedule('every 45 mins synchronized')).toMatchObject({ minutes: 45, synchronized: true });
  });
});

describe('parseAppEngineSchedule: specific times', () => {
  it.each<[string, Partial<Omit<AppEngineSchedule & { kind: 'specific' }, 'kind'>>]>([
    ['every day 00:00', { ordinals: EVERY_ORDINAL, weekdays: [0, 1, 2, 3, 4, 5, 6] }],
    ['everyday 00:00', { ordinals: EVERY_ORDINAL, weekdays: [0, 1, 2, 3, 4, 5, 6] }],
    ['every monday 09:00', { time: 540, ordinals: EVERY_ORDINAL, weekdays: [1] }],
    ['every mon,fri 9:00', { time: 540, ordinals: EVERY_ORDINAL, weekdays: [1, 5] }],
    ['every monday,friday 09:00', { time: 540, ordinals: EVERY_ORDINAL, weekdays: [1, 5] }],
    ['2nd,third mon,wed,thu of march 17:00', { time: 1020, months: [3], ordinals: [2, 3], weekdays: [1, 3, 4] }],
    ['1st monday of sep,oct,nov 17:00', { time: 1020, months: [9, 10, 11], ordinals: [1], weekdays: [1] }],
    ['1st,third mon,wed of sep,oct,nov 17:00', { time: 1020, months: [9, 10, 11], ordinals: [1, 3], weekdays: [1, 3] }],
    ['2nd wednesday of month 00:00', { ordinals: [2], weekdays: [3] }],
    ['1 of jan,april,july,oct 00:00', { months: [1, 4, 7, 10], monthDays: [1] }],
    ['1,15 of jan,jul 09:30', { time: 570, months: [1, 7], monthDays: [1, 15] }],
    ['1st,3rd monday of month 15:30', { time: 930, ordinals: [1, 3], weekdays: [1] }],
    ['every wed,fri of jan,jun 13:15', { time: 795, months: [1, 6], ordinals: EVERY_ORDINAL, weekdays: [3, 5] }],
    ['first sunday of quarter 00:00', { months: [1, 4, 7, 10], ordinals: [1], weekdays: [0] }],
    ['1st mon of 2nd month of quarter 09:00', { time: 540, months: [2, 5, 8, 11], ordinals: [1], weekdays: [1] }],
    [
      '1st mon of 1st,3rd month of quarter 09:00',
      { time: 540, months: [1, 3, 4, 6, 7, 9, 10, 12], ordinals: [1], weekdays: [1] },
    ],
    ['every day of jan 10:00', { time: 600, months: [1], ordinals: EVERY_ORDINAL, weekdays: [0, 1, 2, 3, 4, 5, 6] }],
    ['2nd day of month 10:00', { time: 600, monthDays: [2] }],
    ['1st,fifth day 23:59', { time: 1439, monthDays: [1, 5] }],
    ['fourth thursday of nov 12:00', { time: 720, months: [11], ordinals: [4], weekdays: [4] }],
    ['5th sat of dec 0:05', { time: 5, months: [12], ordinals: [5], weekdays: [6] }],
    ['31 of jan,feb 08:00', { time: 480, months: [1, 2], monthDays: [31] }],
    ['29 of feb 12:00', { time: 720, months: [2], monthDays: [29] }],
  ])('%s', (text, fields) => {
    expect(parseAppEngineSchedule(text)).toEqual(specific(fields));
  });

  it('knows every full and short day and month name, in any case, with spaces anywhere between tokens', () => {
    const days = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
    days.forEach((day, index) => {
      expect(parseAppEngineSchedule(`every ${day} 10:00`)).toMatchObject({ weekdays: [index] });
      expect(parseAppEngineSchedule(`every ${day.slice(0, 3)} 10:00`)).toMatchObject({ weekdays: [index] });
    });
    const months = [
      'january',
      'february',
      'march',
      'april',
      'may',
      'june',
      'july',
      'august',
      'september',
      'october',
      'november',
      'december',
    ];
    months.forEach((month, index) => {
      expect(parseAppEngineSchedule(`1 of ${month} 10:00`)).toMatchObject({ months: [index + 1] });
      expect(parseAppEngineSchedule(`1 of ${month.slice(0, 3)} 10:00`)).toMatchObject({ months: [index + 1] });
    });
    for (const [words, ordinal] of [
      ['1st', 1],
      ['first', 1],
      ['2nd', 2],
      ['second', 2],
      ['3rd', 3],
      ['third', 3],
      ['4th', 4],
      ['fourth', 4],
      ['5th', 5],
      ['fifth', 5],
    ] as const) {
      expect(parseAppEngineSchedule(`${words} tue of month 10:00`)).toMatchObject({ ordinals: [ordinal] });
    }
    expect(parseAppEngineSchedule('  1ST , Third  MON,Wed  OF  Sep , OCT 17:00 ')).toEqual(
      specific({ time: 1020, months: [9, 10], ordinals: [1, 3], weekdays: [1, 3] }),
    );
  });
});

describe('parseAppEngineSchedule: refusals say where parsing stopped', () => {
  it.each([
    ['every 5 minuets', 9, 'minuets', 'expected "minutes" or "mins" or "hours"'],
    ['every 0 mins', 7, '0', 'the interval must be at least 1'],
    ['every 7 minutes synchronized', 17, 'synchronized', 'divides 24 hours evenly'],
    ['every 25 hours synchronized', 16, 'synchronized', 'divides 24 hours evenly'],
    ['every 100000 mins', 7, '100000', 'at most five digits'],
    ['every 5 minutes from 10:00', 27, '', 'expected "to"'],
    ['every 5 minutes from 10:00 to 14:00 synchronized', 37, 'synchronized', 'expected the end'],
    ['every 1 hour', 9, 'hour', 'expected "minutes" or "mins" or "hours"'],
    ['every mon', 10, '', 'expected "of" or a time (HH:MM)'],
    ['every mon 24:00', 11, '24:00', 'expected "of" or a time (HH:MM)'],
    ['every mon 9:5', 11, '9:5', 'expected "of" or a time (HH:MM)'],
    ['every mondays 09:00', 13, 's', 'expected'],
    ['15 10:00', 4, '10:00', 'expected "of"'],
    ['0 of jan 10:00', 1, '0', 'from 1 to 31'],
    ['32 of jan 10:00', 1, '32', 'from 1 to 31'],
    ['31 of feb 10:00', 1, '31', 'day 31 falls in none of the chosen months'],
    ['30 of feb 10:00', 1, '30', 'day 30 falls in none of the chosen months'],
    ['4th mon of 4th month of quarter 10:00', 12, '4th', 'a quarter has three months'],
    ['1st mon of 2nd month 10:00', 22, '10:00', 'expected "of"'],
    ['1st mon of sept 10:00', 15, 't', 'expected'],
    ['', 1, '', 'expected "every", an ordinal (1st-5th, first-fifth) or a number'],
    ['daily 10:00', 1, 'daily', 'expected "every"'],
    ['every mon,day 10:00', 11, 'day', 'expected a weekday'],
    ['every day,mon 10:00', 10, ',', 'expected "of" or a time (HH:MM)'],
    ['every 1st mon 10:00', 7, '1st', 'expected a weekday or "day"'],
  ])('%s: column %i', (text, column, found, reason) => {
    const error = refusal(text);
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.column).toBe(column);
    expect(error.found).toBe(found);
    expect(error.message).toContain(`schedule ${JSON.stringify(text)}`);
    expect(error.message).toContain(reason);
    expect(error.message).toContain(column > text.length ? 'stopped at the end' : `stopped at column ${column}`);
  });

  it('accepts what App Engine accepts even when a day never comes in a chosen month (1,31 of feb)', () => {
    expect(parseAppEngineSchedule('1,31 of feb 10:00')).toMatchObject({ months: [2], monthDays: [1, 31] });
  });

  it('names the job when asked', () => {
    const error = refusal('every 5 minuets').forJob('digest');
    expect(error.message).toBe(
      'job "digest": schedule "every 5 minuets": stopped at column 9 ("minuets"): expected "minutes" or "mins" or "hours"',
    );
    expect(error.details).toMatchObject({ job: 'digest', schedule: 'every 5 minuets', column: 9 });
  });
});
