import type { CronConfig } from '../core/cron/cron-job.js';
import type { ScheduledCronJob } from '../core/cron/cron-scheduler.js';
import { builtInCronQueue, CRON_QUEUE_NAME } from '../core/cron/built-in-cron-queue.js';
import type { ServiceConfig } from '../core/queue-config.js';
import { compileSchedule } from '../cron/compile-schedule.js';
import { configError } from './config-error.js';

export { builtInCronQueue, CRON_QUEUE_NAME } from '../core/cron/built-in-cron-queue.js';

/** The queue a job fires through: its `queue`, else the cron queue. */
export function cronQueueOf(job: { readonly queue: string | null }): string {
  return job.queue ?? CRON_QUEUE_NAME;
}

/**
 * The queue configuration a service runs with its cron file: the built-in
 * cron queue added when a job needs it and the file does not define one.
 * Every job's queue must be a push queue of the configuration
 * (INVALID_CONFIG naming the job otherwise).
 */
export function withCronQueue(config: ServiceConfig, cron: CronConfig | null): ServiceConfig {
  if (cron === null || cron.jobs.length === 0) return config;
  const needsBuiltIn =
    cron.jobs.some((job) => job.queue === null) && !config.queues.some((queue) => queue.name === CRON_QUEUE_NAME);
  const withQueue = needsBuiltIn ? { ...config, queues: [...config.queues, builtInCronQueue()] } : config;
  for (const job of cron.jobs) {
    const name = cronQueueOf(job);
    const queue = withQueue.queues.find((candidate) => candidate.name === name);
    if (queue === undefined)
      throw configError(
        { file: cron.source, job: job.name },
        `queue "${name}" is not in the queue configuration (${config.source})`,
      );
    if (queue.mode !== 'push')
      throw configError(
        { file: cron.source, job: job.name },
        `queue "${name}" is a pull queue; cron firings go through a push queue`,
      );
  }
  return withQueue;
}

/**
 * The cron jobs' queues are in the configuration a process serves as they
 * are: served from the database's definitions, a missing built-in cron
 * queue cannot be added in memory (it would have no row).
 */
export function requireCronQueues(config: ServiceConfig, cron: CronConfig | null): void {
  if (cron !== null && withCronQueue(config, cron) !== config) {
    throw configError(
      { file: cron.source },
      `the cron jobs need the queue "${CRON_QUEUE_NAME}", which the served queue definitions (${config.source}) lack`,
    );
  }
}

/** The jobs of a cron file with their queues and compiled schedules, for the scheduler. */
export function scheduledCronJobs(cron: CronConfig | null): ScheduledCronJob[] | null {
  return cron === null
    ? null
    : cron.jobs.map((job) => {
        const schedule = compileSchedule(job.schedule, { timeZone: job.timezone, job: job.name });
        return { job, queue: cronQueueOf(job), next: (after: Date) => schedule.next(after) };
      });
}

/** A recorded job's schedule as a function (first firing after an instant); null when it does not compile here (written by another version). */
export function cronScheduleOf(job: {
  readonly schedule: string;
  readonly timezone: string;
  readonly name: string;
}): ((after: Date) => Date) | null {
  try {
    const schedule = compileSchedule(job.schedule, { timeZone: job.timezone, job: job.name });
    return (after: Date) => schedule.next(after);
  } catch {
    return null;
  }
}
