import { CRON_FIRING, type CronFiringOptions, type CronJob } from './cron-job.js';
import type { TaskRetryOptions } from '../push/push-task.js';
import type { TaskOptions } from '../task.js';

/**
 * Cloud Scheduler's defaults for what a cron.yaml leaves out of
 * retry_parameters: no retry (job_retry_limit 0), backoff from 5 s to 1 h,
 * 5 doublings, no age limit.
 */
export const CRON_RETRY_DEFAULTS = {
  jobRetryLimit: 0,
  minBackoffSeconds: 5,
  maxBackoffSeconds: 3600,
  maxDoublings: 5,
} as const;

/** A job's retry parameters as a push task's retryOptions (job_retry_limit is task_retry_limit, job_age_limit task_age_limit). */
export function cronRetryOptions(job: CronJob): TaskRetryOptions {
  const r = job.retry;
  const min = r.minBackoffSeconds ?? Math.min(CRON_RETRY_DEFAULTS.minBackoffSeconds, r.maxBackoffSeconds ?? Infinity);
  const max = r.maxBackoffSeconds ?? Math.max(CRON_RETRY_DEFAULTS.maxBackoffSeconds, min);
  return {
    taskRetryLimit: r.jobRetryLimit ?? CRON_RETRY_DEFAULTS.jobRetryLimit,
    ...(r.jobAgeLimitSeconds === null ? {} : { taskAgeLimitSeconds: r.jobAgeLimitSeconds }),
    minBackoffSeconds: min,
    maxBackoffSeconds: max,
    maxDoublings: r.maxDoublings ?? CRON_RETRY_DEFAULTS.maxDoublings,
  };
}

/**
 * The push task of one firing of `job` at `instant`: a GET of the job's url
 * named `name`, with the job's retry parameters and the cron mark (the
 * dispatcher turns it into `X-Appengine-Cron: true` and the
 * `X-CloudScheduler-*` headers).
 */
export function cronFiringTask(job: CronJob, instant: Date, name: string): TaskOptions & CronFiringOptions {
  return {
    name,
    method: 'GET',
    url: job.url,
    retryOptions: cronRetryOptions(job),
    [CRON_FIRING]: {
      job: job.name,
      scheduleTime: instant.toISOString(),
      ...(job.target === null ? {} : { target: job.target }),
    },
  };
}
