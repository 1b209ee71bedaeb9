import {
  CRON_JOB_NAME_PATTERN,
  defaultCronJobName,
  type CronConfig,
  type CronJob,
  type CronRetryParameters,
} from '../core/cron/cron-job.js';
import { isQueueError } from '../core/errors.js';
import { QUEUE_NAME_PATTERN } from '../core/queue-config.js';
import { compileSchedule } from '../cron/compile-schedule.js';
import type { ConfigNode, ConfigSyntax } from './config-node.js';
import {
  AGE_UNIT_SECONDS,
  NON_NEGATIVE_DECIMAL,
  NON_NEGATIVE_INTEGER,
  fail,
  groupChildren,
  leafText,
  type Scope,
} from './element-tree.js';

/** App Engine's limit of cron jobs per app. */
export const MAX_CRON_JOBS = 250;
/** App Engine's limits: croninfo.py `_DESCRIPTION_REGEX`, `_TIMEZONE_REGEX`; a push task's URL. */
const MAX_DESCRIPTION = 499;
const MAX_TIMEZONE = 100;
const MAX_URL = 2083;
/** Cloud Scheduler's (and App Engine's documented) most retries of a firing. */
const MAX_JOB_RETRY_LIMIT = 5;

const ROOT_ELEMENTS = new Set(['cron', 'application']);
const JOB_ELEMENTS = new Set([
  'url',
  'schedule',
  'description',
  'timezone',
  'target',
  'retry-parameters',
  'queue',
  'name',
]);
const RETRY_ELEMENTS = new Set([
  'job-retry-limit',
  'job-age-limit',
  'min-backoff-seconds',
  'max-backoff-seconds',
  'max-doublings',
]);

/** croninfo.py's `TimeValue`: a number and s, m, h or d. */
const AGE_LIMIT = /^([0-9]+(?:\.[0-9]*)?)([smhd])$/;
/** A path of the app (with query and fragment), without whitespace; control characters are refused separately. */
const URL_PATH = /^\/\S*$/;
const TARGET = /^\S{1,100}$/;

/**
 * Validates the format-neutral tree of a cron.yaml or cron.xml (see
 * config-node.ts) into jobs. `url` and `schedule` are required; the
 * schedule must parse in the job's timezone (IANA, default UTC); the
 * retry parameters are App Engine's (job_retry_limit 0-5, job_age_limit
 * such as `2d`, backoffs in seconds with min <= max, max_doublings); our
 * `queue` names the push queue and `name` the job (default: derived from
 * url, schedule, timezone and target, see defaultCronJobName). Names must
 * be unique. Unknown keys are errors, as in queue files: a misspelt
 * `job_retry_limt` would otherwise leave a job without retries.
 */
export function buildCronConfig(root: ConfigNode, syntax: ConfigSyntax, source: string): CronConfig {
  const rootScope: Scope = { syntax, location: { file: source } };
  const groups = groupChildren(rootScope, root, syntax.rootLabel, ROOT_ELEMENTS, new Set(['cron']));
  const jobNodes = groups.get('cron') ?? [];
  if (jobNodes.length > MAX_CRON_JOBS) {
    fail(rootScope, `${jobNodes.length} jobs, more than the limit of ${MAX_CRON_JOBS}`);
  }
  const jobs: CronJob[] = [];
  const firstIndexOf = new Map<string, number>();
  jobNodes.forEach((node, index) => {
    const job = buildJob(syntax, source, node, index + 1);
    const earlier = firstIndexOf.get(job.name);
    if (earlier !== undefined) {
      const hint = nameGiven(node) ? '' : `; give one of them a ${syntax.label(syntax.keyFor('name'))}`;
      fail(
        { syntax, location: { file: source, job: job.name } },
        `jobs #${earlier} and #${index + 1} have the same name${hint}`,
      );
    }
    firstIndexOf.set(job.name, index + 1);
    jobs.push(job);
  });
  return { source, jobs };
}

function buildJob(syntax: ConfigSyntax, file: string, node: ConfigNode, index: number): CronJob {
  const byIndex: Scope = { syntax, location: { file, jobIndex: index } };
  const groups = groupChildren(byIndex, node, `job #${index}`, JOB_ELEMENTS, new Set());
  const text = (name: string): string | null => {
    const child = groups.get(name)?.[0];
    return child === undefined ? null : leafText(byIndex, child);
  };
  const explicitName = text('name');
  if (explicitName !== null && !CRON_JOB_NAME_PATTERN.test(explicitName)) {
    fail(byIndex, `${label(syntax, 'name')} must be 1 to 100 letters, digits, _ or -, got "${explicitName}"`, {
      element: syntax.keyFor('name'),
    });
  }
  // Named by its own name when it has one, so messages about its other keys say which job.
  const scope: Scope = explicitName === null ? byIndex : { syntax, location: { file, job: explicitName } };
  const url = required(scope, text('url'), 'url');
  if (url.length > MAX_URL || !URL_PATH.test(url) || hasControlCharacter(url)) {
    fail(
      scope,
      `${label(syntax, 'url')} must be a path of the app starting with / (no spaces, at most ${MAX_URL} characters), got "${url.slice(0, 80)}"`,
      {
        element: syntax.keyFor('url'),
      },
    );
  }
  const schedule = required(scope, text('schedule'), 'schedule');
  const timezone = optional(text('timezone'));
  if (timezone !== null && timezone.length > MAX_TIMEZONE) {
    fail(scope, `${label(syntax, 'timezone')} is longer than ${MAX_TIMEZONE} characters`, {
      element: syntax.keyFor('timezone'),
    });
  }
  const description = optional(text('description'));
  if (description !== null && description.length > MAX_DESCRIPTION) {
    fail(scope, `${label(syntax, 'description')} is longer than ${MAX_DESCRIPTION} characters`, {
      element: syntax.keyFor('description'),
    });
  }
  const target = optional(text('target'));
  if (target !== null && !TARGET.test(target)) {
    fail(scope, `${label(syntax, 'target')} must be a service or version name without spaces, got "${target}"`, {
      element: syntax.keyFor('target'),
    });
  }
  const queue = optional(text('queue'));
  if (queue !== null && !QUEUE_NAME_PATTERN.test(queue)) {
    fail(scope, `${label(syntax, 'queue')} must be a queue name (letters, digits and -, 1 to 100), got "${queue}"`, {
      element: syntax.keyFor('queue'),
    });
  }
  try {
    compileSchedule(schedule, { timeZone: timezone ?? 'UTC' });
  } catch (error) {
    if (!isQueueError(error, 'INVALID_CONFIG')) throw error;
    fail(
      scope,
      error.message,
      { element: syntax.keyFor(error.details.field === 'timezone' ? 'timezone' : 'schedule') },
      error,
    );
  }
  const name = explicitName ?? defaultCronJobName({ url, schedule, timezone, target });
  const retryNode = groups.get('retry-parameters')?.[0];
  return {
    name,
    url,
    schedule,
    description,
    timezone: timezone ?? 'UTC',
    target,
    queue,
    retry: retryNode === undefined ? NO_RETRY_PARAMETERS : retryParameters(scope, retryNode),
  };
}

const NO_RETRY_PARAMETERS: CronRetryParameters = {
  jobRetryLimit: null,
  jobAgeLimitSeconds: null,
  minBackoffSeconds: null,
  maxBackoffSeconds: null,
  maxDoublings: null,
};

function retryParameters(scope: Scope, node: ConfigNode): CronRetryParameters {
  const { syntax } = scope;
  const groups = groupChildren(scope, node, label(syntax, 'retry-parameters'), RETRY_ELEMENTS, new Set());
  const value = (name: string, pattern: RegExp, expected: string): string | null => {
    const child = groups.get(name)?.[0];
    if (child === undefined) return null;
    const text = leafText(scope, child);
    if (!pattern.test(text))
      fail(scope, `${syntax.label(child.key)} must be ${expected}, got "${text}"`, { element: child.key });
    return text;
  };
  const retryLimit = value('job-retry-limit', NON_NEGATIVE_INTEGER, `an integer from 0 to ${MAX_JOB_RETRY_LIMIT}`);
  if (retryLimit !== null && Number(retryLimit) > MAX_JOB_RETRY_LIMIT) {
    fail(
      scope,
      `${label(syntax, 'job-retry-limit')} must be an integer from 0 to ${MAX_JOB_RETRY_LIMIT}, got "${retryLimit}"`,
      {
        element: syntax.keyFor('job-retry-limit'),
      },
    );
  }
  const ageLimit = value('job-age-limit', AGE_LIMIT, 'a duration such as "2d" (a number with an s, m, h or d suffix)');
  let jobAgeLimitSeconds: number | null = null;
  if (ageLimit !== null) {
    const [, amount, unit] = AGE_LIMIT.exec(ageLimit) as unknown as [string, string, string];
    jobAgeLimitSeconds = Number(amount) * AGE_UNIT_SECONDS[unit]!;
    if (jobAgeLimitSeconds <= 0) {
      fail(scope, `${label(syntax, 'job-age-limit')} must be more than zero, got "${ageLimit}"`, {
        element: syntax.keyFor('job-age-limit'),
      });
    }
  }
  const minBackoff = value('min-backoff-seconds', NON_NEGATIVE_DECIMAL, 'a non-negative number of seconds');
  const maxBackoff = value('max-backoff-seconds', NON_NEGATIVE_DECIMAL, 'a non-negative number of seconds');
  if (minBackoff !== null && maxBackoff !== null && Number(minBackoff) > Number(maxBackoff)) {
    fail(
      scope,
      `${label(syntax, 'min-backoff-seconds')} (${minBackoff}) is more than ${label(syntax, 'max-backoff-seconds')} (${maxBackoff})`,
      {
        element: syntax.keyFor('min-backoff-seconds'),
      },
    );
  }
  const maxDoublings = value('max-doublings', NON_NEGATIVE_INTEGER, 'a non-negative integer');
  return {
    jobRetryLimit: retryLimit === null ? null : Number(retryLimit),
    jobAgeLimitSeconds,
    minBackoffSeconds: minBackoff === null ? null : Number(minBackoff),
    maxBackoffSeconds: maxBackoff === null ? null : Number(maxBackoff),
    maxDoublings: maxDoublings === null ? null : Number(maxDoublings),
  };
}

function hasControlCharacter(text: string): boolean {
  return [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
}

function nameGiven(node: ConfigNode): boolean {
  return node.children.some((child) => child.name === 'name');
}

function required(scope: Scope, value: string | null, name: string): string {
  if (value === null || value === '') {
    fail(scope, `${label(scope.syntax, name)} is required`, { element: scope.syntax.keyFor(name) });
  }
  return value;
}

function optional(value: string | null): string | null {
  return value === null || value === '' ? null : value;
}

function label(syntax: ConfigSyntax, name: string): string {
  return syntax.label(syntax.keyFor(name));
}
