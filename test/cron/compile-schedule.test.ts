import { describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { compileSchedule, isCronExpression, nextFirings } from '../../src/cron/compile-schedule.js';
import { ScheduleError } from '../../src/cron/schedule-error.js';

function refusal(text: string, options: Parameters<typeof compileSchedule>[1] = {}): Error {
  try {
    compileSchedule(text, options);
  } catch (error) {
    expect(isQueueError(error, 'INVALID_CONFIG')).toBe(true);
    return error as Error;
  }
  throw new Error(`"${text}" was accepted`);
}

describe('compileSchedule', () => {
  it('tells App Engine schedules from cron expressions', () => {
    for (const text of [
      'every 5 minutes',
      'every day 10:00',
      '1,15 of jan 09:30',
      '1st mon of jan',
      'every mon',
      'first sunday of quarter',
      'every5mins',
    ]) {
      expect(isCronExpression(text), text).toBe(false);
    }
    for (const text of ['*/5 * * * *', '0 9 * * mon-fri', '@daily', '0 0 1 jan *', '30 2 * * 0']) {
      expect(isCronExpression(text), text).toBe(true);
    }
    expect(compileSchedule('every 5 minutes')).toMatchObject({
      syntax: 'app-engine',
      timeZone: 'UTC',
      parsed: { kind: 'interval' },
    });
    expect(compileSchedule('*/5 * * * *', { timeZone: 'Europe/Paris' })).toMatchObject({
      syntax: 'cron',
      timeZone: 'Europe/Paris',
      parsed: null,
    });
  });

  it('reports an App Engine schedule missing its time with the App Engine grammar, not as a bad cron expression', () => {
    expect(refusal('1st mon of jan').message).toBe(
      'schedule "1st mon of jan": stopped at the end: expected a time (HH:MM)',
    );
  });

  it('names the job, the text and the place in every refusal', () => {
    expect(refusal('every 5 minuets', { job: 'digest' }).message).toBe(
      'job "digest": schedule "every 5 minuets": stopped at column 9 ("minuets"): expected "minutes" or "mins" or "hours"',
    );
    const cron = refusal('61 * * * *', { job: 'digest' });
    expect(cron).toBeInstanceOf(ScheduleError);
    expect(cron.message).toMatch(
      /^job "digest": schedule "61 \* \* \* \*": stopped at column 1 \("61"\): not a valid cron expression: .*minute/,
    );
    expect(refusal('0 25 * * *', { job: 'j' }).message).toMatch(
      /stopped at column 3 \("25"\): not a valid cron expression: .*hour/,
    );
    expect(refusal('* * * *', { job: 'j' }).message).toBe(
      'job "j": schedule "* * * *": stopped at the end: a cron expression has five fields (minute hour day-of-month month day-of-week), this has 4',
    );
    expect(refusal('0 0 * * * 2026', { job: 'j' }).message).toContain(
      'stopped at column 11 ("2026"): a cron expression has five fields',
    );
    expect(refusal('@fortnightly', { job: 'j' }).message).toContain('unknown nickname');
  });

  it('refuses an unknown time zone, naming the job', () => {
    const error = refusal('every day 10:00', { timeZone: 'Mars/Olympus_Mons', job: 'digest' });
    expect(error.message).toBe(
      'job "digest": unknown time zone "Mars/Olympus_Mons"; use an IANA name such as "Europe/Paris" or "UTC"',
    );
    expect((error as ScheduleError).details).toMatchObject({ field: 'timezone', job: 'digest' });
  });

  it('gives firings in order, each after the one before', () => {
    const schedule = compileSchedule('every mon,fri 09:00', { timeZone: 'Europe/London' });
    const list = nextFirings(schedule, new Date('2026-03-25T00:00:00Z'), 4).map((d) => d.toISOString());
    // London moves to BST on 29 March 2026.
    expect(list).toEqual([
      '2026-03-27T09:00:00.000Z',
      '2026-03-30T08:00:00.000Z',
      '2026-04-03T08:00:00.000Z',
      '2026-04-06T08:00:00.000Z',
    ]);
    expect(nextFirings(schedule, new Date('2026-03-25T00:00:00Z'), 0)).toEqual([]);
  });
});
