import { describe, expect, it } from 'vitest';
import { cronFiringTask } from '../../src/core/cron/cron-firing.js';
import {
  CRON_TASK_NAME_PATTERN,
  cronRunTaskName,
  cronTaskName,
  isCronTaskName,
  type CronJob,
} from '../../src/core/cron/cron-job.js';
import { isQueueError } from '../../src/core/errors.js';
import { defaultQueueConfig, type QueueConfig } from '../../src/core/queue-config.js';
import { validateNewTask } from '../../src/core/validate-task.js';
import { builtInCronQueue } from '../../src/config/cron-queue.js';

/**
 * The names of cron firings are reserved (issue 30): a producer that adds
 * the next firing's name first takes the firing's place. Only the cron
 * scheduler's add, which carries the firing mark, may use the form.
 */
const JOB: CronJob = {
  name: 'tick',
  url: '/tick',
  schedule: 'every 1 minutes',
  description: null,
  timezone: 'UTC',
  target: null,
  queue: null,
  retry: {
    jobRetryLimit: null,
    jobAgeLimitSeconds: null,
    minBackoffSeconds: null,
    maxBackoffSeconds: null,
    maxDoublings: null,
  },
};
const cronQueue: QueueConfig = builtInCronQueue();
const pull: QueueConfig = defaultQueueConfig();

function refusal(queue: QueueConfig, options: Parameters<typeof validateNewTask>[1]): string {
  try {
    validateNewTask(queue, options, 0);
  } catch (error) {
    if (isQueueError(error, 'INVALID_TASK_NAME')) return error.message;
    throw error;
  }
  return 'accepted';
}

describe('reserved cron task names', () => {
  it('the form covers every name a firing or a run gets, for any job name', () => {
    const at = new Date('2026-03-01T09:00:00Z');
    for (const job of ['tick', 'a', 'tasks-summary-1f3a9c0e', 'x_y-z', 'run', '2026', 'A'.repeat(100)]) {
      expect(isCronTaskName(cronTaskName(job, at))).toBe(true);
      expect(isCronTaskName(cronRunTaskName(job, new Date('2026-03-01T09:00:00.042Z')))).toBe(true);
      expect(isCronTaskName(cronRunTaskName(job, at))).toBe(true);
    }
    expect(CRON_TASK_NAME_PATTERN.test('cron-tick-20260301T090000Z')).toBe(true);
  });

  it("leaves names that are not a firing's alone", () => {
    for (const name of [
      'cron',
      'cron-tick',
      'cron-tick-2026',
      'cron-tick-20260301T0900Z',
      'cron--20260301T090000Z',
      'Cron-tick-20260301T090000Z',
      'xcron-tick-20260301T090000Z',
      'cron-tick-20260301T090000Zx',
    ]) {
      expect(isCronTaskName(name), name).toBe(false);
      expect(refusal(pull, { name })).toBe('accepted');
    }
  });

  it('a producer cannot add one: to the cron queue, to another push queue or to a pull queue', () => {
    const forged = { name: 'cron-tick-20260301T090100Z', method: 'GET', url: '/tick' } as const;
    expect(refusal(cronQueue, forged)).toMatch(
      /task name "cron-tick-20260301T090100Z" has the form of a cron firing .* which only the cron service adds/,
    );
    expect(refusal({ ...cronQueue, name: 'hooks' }, { ...forged, name: 'cron-tick-run-20260301T090100123Z' })).toMatch(
      /only the cron service adds/,
    );
    expect(refusal(pull, { name: 'cron-tick-20260301T090100Z' })).toMatch(/only the cron service adds/);
  });

  it("the scheduler's own add of a firing passes", () => {
    const at = new Date('2026-03-01T09:01:00Z');
    expect(refusal(cronQueue, cronFiringTask(JOB, at, cronTaskName('tick', at)))).toBe('accepted');
  });
});
