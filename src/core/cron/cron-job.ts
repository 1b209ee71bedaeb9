import { createHash } from 'node:crypto';
import { QueueError } from '../errors.js';

/**
 * Retry parameters of a cron job (App Engine's `retry_parameters`). Null
 * means "not given": App Engine then retries a failed firing not at all
 * (job_retry_limit 0), with backoff from 5 s to 1 h and 5 doublings.
 */
export interface CronRetryParameters {
  /** Retries after the first attempt, 0-5. */
  readonly jobRetryLimit: number | null;
  /** How long retries may go on, measured from the first attempt, in seconds. */
  readonly jobAgeLimitSeconds: number | null;
  readonly minBackoffSeconds: number | null;
  readonly maxBackoffSeconds: number | null;
  readonly maxDoublings: number | null;
}

/** One job of a cron.yaml / cron.xml file. */
export interface CronJob {
  /** Stable id: the `name` extension, or one derived from url, schedule, timezone and target. */
  readonly name: string;
  /** Path of the app the firing requests with GET, starting with `/`. */
  readonly url: string;
  /** The schedule as written: App Engine's grammar, or a five-field cron expression. */
  readonly schedule: string;
  readonly description: string | null;
  /** IANA zone the schedule's local times are read in; `UTC` when not given. */
  readonly timezone: string;
  /** App Engine's service/version; accepted and kept, not routed. */
  readonly target: string | null;
  /** The push queue that delivers the firings (extension); null = the built-in cron queue. */
  readonly queue: string | null;
  readonly retry: CronRetryParameters;
}

/** Jobs read from one file. */
export interface CronConfig {
  /** The file the jobs came from. */
  readonly source: string;
  readonly jobs: readonly CronJob[];
}

/** A job's name: letters, digits, `_` and `-`, 1 to 100, so that its task names stay valid and short. */
export const CRON_JOB_NAME_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;

/** Longest slug of the url kept in a derived name, before the hash. */
const SLUG_LENGTH = 40;

/**
 * The name of a job that has none: a slug of its url and a hash of what
 * makes it distinct (url, schedule, and the timezone and target when
 * given), such as `tasks-summary-1f3a9c0e`. The same file gives the same
 * names on every process and after every restart; changing the url or the
 * schedule makes it another job.
 */
export function defaultCronJobName(job: {
  url: string;
  schedule: string;
  timezone?: string | null;
  target?: string | null;
}): string {
  const identity = [job.url, job.schedule, job.timezone ?? '', job.target ?? ''].join('\n');
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 8);
  const slug = job.url
    .replace(/[?#].*$/, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_LENGTH)
    .replace(/-+$/, '');
  return slug === '' ? `job-${hash}` : `${slug}-${hash}`;
}

/**
 * The task name of a job's firing at an instant: `cron-<job>-<UTC instant>`,
 * e.g. `cron-digest-20260301T090000Z`. Deterministic, so any number of
 * processes adding the firing make one task (the others meet
 * TASK_ALREADY_EXISTS or TOMBSTONED_TASK), and always a valid task name.
 */
export function cronTaskName(jobName: string, instant: Date): string {
  if (!CRON_JOB_NAME_PATTERN.test(jobName)) {
    throw new QueueError(
      'INVALID_CONFIG',
      `cron job name must match ${CRON_JOB_NAME_PATTERN.source}, got ${JSON.stringify(jobName)}`,
      {
        field: 'name',
      },
    );
  }
  const time = instant.getTime();
  if (!Number.isFinite(time))
    throw new QueueError('INVALID_REQUEST', 'a firing needs a valid instant', { field: 'instant' });
  const stamp = instant
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  if (!/^\d{8}T\d{6}Z$/.test(stamp)) {
    throw new QueueError(
      'INVALID_REQUEST',
      `a firing instant must fall in years 0000-9999, got ${instant.toISOString()}`,
      { field: 'instant' },
    );
  }
  return `cron-${jobName}-${stamp}`;
}

/**
 * The form of every name cronTaskName and cronRunTaskName make:
 * `cron-<job>-<YYYYMMDDTHHMMSS>Z`, a run's with milliseconds before the Z.
 * Reserved: only the cron service adds a task so named (its add carries the
 * CRON_FIRING mark). A producer that could add the next firing's name first
 * would take the firing's place, its task delivered where the firing should
 * be and the firing skipped (issue 30); every add path refuses the form
 * (validate-task.ts; the SQL API's add functions from the same source).
 * Written in the regular-expression syntax JavaScript and PostgreSQL share.
 */
export const CRON_TASK_NAME_PATTERN = /^cron-[A-Za-z0-9_-]+-[0-9]{8}T[0-9]{6}([0-9]{3})?Z$/;

/** Whether `name` has the reserved form of a cron firing's task name. */
export function isCronTaskName(name: string): boolean {
  return CRON_TASK_NAME_PATTERN.test(name);
}

/** Why a producer's add of a name in the reserved form is refused (the service and the SQL API say the same). */
export const RESERVED_CRON_NAME_REASON =
  'has the form of a cron firing (cron-<job>-<YYYYMMDDTHHMMSS>Z), which only the cron service adds';

/**
 * What marks a push task as a cron firing: the job and its scheduled
 * instant (ISO UTC). Stored with the task's request; the dispatcher sends it
 * as `X-Appengine-Cron: true` and `X-CloudScheduler-*` headers.
 */
export interface CronFiringMark {
  readonly job: string;
  readonly scheduleTime: string;
  /** The job's App Engine `target`: its route (TASKQUEUE_TARGET_URLS) is where the firing goes, over its queue's URL. */
  readonly target?: string;
}

/**
 * The key of a CronFiringMark on the options of an add. A symbol on
 * purpose: no JSON a REST or CLI caller sends can carry one, so only the
 * scheduler in this process can make a request that says it came from cron
 * (App Engine strips `X-Appengine-Cron` from outside requests; handlers
 * trust it).
 */
export const CRON_FIRING: unique symbol = Symbol('taskqueue.cronFiring');

/** Add options that carry a cron firing's mark. */
export interface CronFiringOptions {
  readonly [CRON_FIRING]?: CronFiringMark;
}

/**
 * The task name of a `taskqueue cron run` (a firing now, outside the
 * schedule): `cron-<job>-run-<UTC instant with milliseconds>`. The
 * milliseconds keep it apart from every scheduled firing's name, whose stamp
 * has none.
 */
export function cronRunTaskName(jobName: string, at: Date): string {
  const scheduled = cronTaskName(jobName, new Date(Math.floor(at.getTime() / 1000) * 1000));
  const millis = String(at.getTime() % 1000).padStart(3, '0');
  return `cron-${jobName}-run-${scheduled.slice(`cron-${jobName}-`.length, -1)}${millis}Z`;
}
