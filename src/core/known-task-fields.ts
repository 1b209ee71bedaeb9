import { QueueError } from './errors.js';
import { RETRY_OPTION_RULES } from './push/push-rules.js';
import type { TaskOptions } from './task.js';

/**
 * The fields of `TaskOptions`. A field outside them is refused, as REST
 * (task-body.ts) and the queue files refuse theirs: JavaScript callers and
 * casts get past the type, and a misspelt `countdown` or `tagg` silently
 * ignored meant a task leased at once, or untagged.
 */
const TASK_FIELDS: ReadonlySet<string> = new Set<keyof TaskOptions>([
  'name',
  'payload',
  'tag',
  'method',
  'url',
  'headers',
  'params',
  'retryOptions',
  'dispatchDeadlineSeconds',
  'countdownSeconds',
  'eta',
  'etaUsec',
]);

const RETRY_FIELDS: ReadonlySet<string> = new Set(Object.keys(RETRY_OPTION_RULES));

/** App Engine's Python `Task()` argument names, pointed at ours in the error. */
const PYTHON_NAMES: Readonly<Record<string, string>> = {
  countdown: 'countdownSeconds',
  retry_options: 'retryOptions',
  dispatch_deadline: 'dispatchDeadlineSeconds',
  task_retry_limit: 'taskRetryLimit',
  task_age_limit: 'taskAgeLimitSeconds',
  min_backoff_seconds: 'minBackoffSeconds',
  max_backoff_seconds: 'maxBackoffSeconds',
  max_doublings: 'maxDoublings',
};

/**
 * Throws INVALID_REQUEST naming the first field of `options` (or of its
 * `retryOptions`) that is not one of ours. Symbol keys (the cron firing's
 * mark) are not fields and are not enumerated here.
 */
export function checkKnownTaskFields(options: TaskOptions, queue: string, index: number): void {
  for (const key in options) {
    if (!TASK_FIELDS.has(key)) throw unknownField(key, TASK_FIELDS, 'a task', { queue, field: key, index });
  }
  const retry: unknown = options.retryOptions;
  if (typeof retry !== 'object' || retry === null) return;
  for (const key in retry) {
    if (!RETRY_FIELDS.has(key))
      throw unknownField(
        key,
        RETRY_FIELDS,
        'retryOptions',
        { queue, field: `retryOptions.${key}`, index },
        'retryOptions.',
      );
  }
}

/** The fields of `AddOptions` (task-queue.ts; listed here, as importing it would make a cycle). */
const ADD_OPTIONS: readonly string[] = ['transaction', 'restore'];

/**
 * Throws INVALID_REQUEST naming an option of `add` that is not one of
 * ours: a misspelt `transaction` would add the task outside the caller's
 * transaction, visible before its commit and kept after its rollback.
 */
export function checkKnownAddOptions(options: object, queue: string): void {
  for (const key in options) {
    if (!ADD_OPTIONS.includes(key)) {
      throw new QueueError(
        'INVALID_REQUEST',
        `unknown add option "${key.slice(0, 60)}"; the options are ${ADD_OPTIONS.join(', ')}`,
        { queue, field: key },
      );
    }
  }
}

function unknownField(
  key: string,
  known: ReadonlySet<string>,
  of: string,
  details: Record<string, unknown>,
  prefix = '',
): QueueError {
  const shown = key.slice(0, 60);
  const hint = PYTHON_NAMES[key] === undefined ? '' : ` (did you mean ${PYTHON_NAMES[key]}?)`;
  return new QueueError(
    'INVALID_REQUEST',
    `unknown field "${prefix}${shown}" in ${of}${hint}; its fields are ${[...known].join(', ')}`,
    details,
  );
}
