import { describe, expect, it } from 'vitest';
import { cronTaskName, defaultCronJobName } from '../../src/core/cron/cron-job.js';
import { TASK_NAME_PATTERN } from '../../src/core/task.js';

describe('defaultCronJobName', () => {
  const job = { url: '/tasks/summary', schedule: 'every 24 hours' };

  it('is a slug of the url and a hash, the same every time', () => {
    const name = defaultCronJobName(job);
    expect(name).toMatch(/^tasks-summary-[0-9a-f]{8}$/);
    expect(defaultCronJobName({ ...job })).toBe(name);
  });

  it("differs when the url, schedule, timezone or target differ (App Engine's own example has two jobs that differ only by target)", () => {
    const names = new Set([
      defaultCronJobName(job),
      defaultCronJobName({ ...job, url: '/tasks/summary2' }),
      defaultCronJobName({ ...job, schedule: 'every 12 hours' }),
      defaultCronJobName({ ...job, timezone: 'Europe/Paris' }),
      defaultCronJobName({ ...job, target: 'beta' }),
    ]);
    expect(names.size).toBe(5);
    expect(defaultCronJobName({ ...job, timezone: null, target: null })).toBe(defaultCronJobName(job));
  });

  it('keeps the slug short and plain, and drops the query', () => {
    expect(defaultCronJobName({ url: '/', schedule: 'every 1 mins' })).toMatch(/^job-[0-9a-f]{8}$/);
    expect(defaultCronJobName({ url: '/a/b?c=d#e', schedule: 'every 1 mins' })).toMatch(/^a-b-[0-9a-f]{8}$/);
    const long = defaultCronJobName({ url: `/${'x'.repeat(300)}`, schedule: 'every 1 mins' });
    expect(long.length).toBe(40 + 1 + 8);
  });
});

describe('cronTaskName', () => {
  it('names a firing by job and instant, as a valid task name', () => {
    const name = cronTaskName('digest', new Date('2026-03-01T09:00:00Z'));
    expect(name).toBe('cron-digest-20260301T090000Z');
    expect(name).toMatch(TASK_NAME_PATTERN);
    expect(cronTaskName('digest', new Date('2026-03-01T09:00:00Z'))).toBe(name);
    expect(cronTaskName('digest', new Date('2026-03-01T09:01:00Z'))).not.toBe(name);
    expect(cronTaskName('tasks-summary-1f3a9c0e', new Date('2026-12-31T23:59:59.999Z'))).toBe(
      'cron-tasks-summary-1f3a9c0e-20261231T235959Z',
    );
    const longest = cronTaskName('n'.repeat(100), new Date('2026-03-01T09:00:00Z'));
    expect(longest).toMatch(TASK_NAME_PATTERN);
  });

  it('refuses a job name that would not make a task name, and an invalid instant', () => {
    expect(() => cronTaskName('a b', new Date())).toThrow(/cron job name must match/);
    expect(() => cronTaskName('n'.repeat(101), new Date())).toThrow(/cron job name must match/);
    expect(() => cronTaskName('digest', new Date(Number.NaN))).toThrow(/valid instant/);
    expect(() => cronTaskName('digest', new Date('+010000-01-01T00:00:00Z'))).toThrow(/years 0000-9999/);
  });
});
