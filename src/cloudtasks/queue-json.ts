import { QueueError } from '../core/errors.js';
import { DEFAULT_PUSH_SETTINGS, type QueueConfig } from '../core/queue-config.js';
import { durationFromMillis, durationToMillis, formatDuration, parseDuration } from './proto-duration.js';

/**
 * Cloud Tasks v2's `Queue` in proto3 JSON, both ways, over the queue model
 * (QueueConfig): rateLimits.maxDispatchesPerSecond is the push rate,
 * maxConcurrentDispatches the cap on requests in flight, maxBurstSize
 * (output only) the bucket; retryConfig.maxAttempts counts attempts in all
 * (the retry limit is one less; -1 is unlimited), maxRetryDuration is the
 * task age limit, min/maxBackoff and maxDoublings the backoff's.
 */

/** What Cloud Tasks gives a queue made without them. */
export const CLOUD_TASKS_DEFAULTS = {
  maxDispatchesPerSecond: 500,
  maxConcurrentDispatches: 1000,
  maxAttempts: 100,
  minBackoffMs: 100,
  maxBackoffMs: 3_600_000,
  maxDoublings: 16,
} as const;

/** Cloud Tasks' bounds on the rate and the concurrency. */
const MAX_RATE = 500;
const MAX_CONCURRENT = 5000;

/** google.cloud.tasks.v2.Queue.State by number. */
export const QUEUE_STATES = ['STATE_UNSPECIFIED', 'RUNNING', 'PAUSED', 'DISABLED'] as const;

/** A queue's settings as Cloud Tasks names them, in the service's units. */
interface CloudTasksSettings {
  rate: number;
  concurrent: number;
  /** -1: unlimited. */
  maxAttempts: number;
  /** 0: no limit. */
  maxRetryMs: number;
  minBackoffMs: number;
  maxBackoffMs: number;
  maxDoublings: number;
  extras: Record<string, unknown>;
}

/**
 * The bucket Cloud Tasks picks for a rate ("based on the value of
 * max_dispatches_per_second"; it documents no formula): one token per
 * dispatch a second, at least 1 and at most 100, so its default 500/s
 * gives the 100 it shows for a new queue. A queue.xml queue keeps its
 * <bucket-size>.
 */
export function burstSizeOf(ratePerSecond: number): number {
  return Math.max(1, Math.min(100, Math.ceil(ratePerSecond)));
}

/** The Queue resource of a served queue; enums by name, or by number when the client asked (`$alt=json;enum-encoding=int`). */
export function queueJson(
  config: QueueConfig,
  options: { readonly name: string; readonly paused: boolean; readonly enumsAsNumbers: boolean },
): Record<string, unknown> {
  const push = config.push ?? DEFAULT_PUSH_SETTINGS;
  const settings = settingsOf(config);
  const state = options.paused ? 2 : 1;
  return {
    name: options.name,
    ...(settings.extras.appEngineRoutingOverride === undefined
      ? {}
      : { appEngineRoutingOverride: settings.extras.appEngineRoutingOverride }),
    rateLimits: {
      maxDispatchesPerSecond: push.ratePerSecond,
      maxBurstSize: push.bucketSize,
      maxConcurrentDispatches: push.maxConcurrentRequests ?? MAX_CONCURRENT,
    },
    retryConfig: {
      maxAttempts: settings.maxAttempts,
      maxRetryDuration: formatDuration(durationFromMillis(settings.maxRetryMs)),
      minBackoff: formatDuration(durationFromMillis(settings.minBackoffMs)),
      maxBackoff: formatDuration(durationFromMillis(settings.maxBackoffMs)),
      maxDoublings: settings.maxDoublings,
    },
    state: options.enumsAsNumbers ? state : QUEUE_STATES[state],
    ...(settings.extras.stackdriverLoggingConfig === undefined
      ? {}
      : { stackdriverLoggingConfig: settings.extras.stackdriverLoggingConfig }),
  };
}

/** A served queue's settings as Cloud Tasks names them. */
function settingsOf(config: QueueConfig): CloudTasksSettings {
  const push = config.push ?? DEFAULT_PUSH_SETTINGS;
  return {
    rate: push.ratePerSecond,
    concurrent: push.maxConcurrentRequests ?? MAX_CONCURRENT,
    maxAttempts: config.maxLeases === null ? -1 : config.maxLeases + 1,
    maxRetryMs: (config.retry.ageLimitSeconds ?? 0) * 1000,
    minBackoffMs: config.retry.minBackoffSeconds * 1000,
    maxBackoffMs: config.retry.maxBackoffSeconds * 1000,
    maxDoublings: config.retry.maxDoublings,
    extras: { ...(config.apiExtras ?? {}) },
  };
}

/** A new queue's settings: Cloud Tasks' defaults. */
function defaultSettings(): CloudTasksSettings {
  return {
    rate: CLOUD_TASKS_DEFAULTS.maxDispatchesPerSecond,
    concurrent: CLOUD_TASKS_DEFAULTS.maxConcurrentDispatches,
    maxAttempts: CLOUD_TASKS_DEFAULTS.maxAttempts,
    maxRetryMs: 0,
    minBackoffMs: CLOUD_TASKS_DEFAULTS.minBackoffMs,
    maxBackoffMs: CLOUD_TASKS_DEFAULTS.maxBackoffMs,
    maxDoublings: CLOUD_TASKS_DEFAULTS.maxDoublings,
    extras: {},
  };
}

const QUEUE_FIELDS = new Set([
  'name',
  'appEngineRoutingOverride',
  'rateLimits',
  'retryConfig',
  'state',
  'purgeTime',
  'stackdriverLoggingConfig',
]);
const RATE_FIELDS = new Set(['maxDispatchesPerSecond', 'maxBurstSize', 'maxConcurrentDispatches']);
const RETRY_FIELDS = new Set(['maxAttempts', 'maxRetryDuration', 'minBackoff', 'maxBackoff', 'maxDoublings']);
const ROUTING_FIELDS = new Set(['service', 'version', 'instance', 'host']);
const LOGGING_FIELDS = new Set(['samplingRatio']);

/** The update mask paths a patch may name, camelCase (the snake_case spelling is turned into this first). */
const MASK_PATHS = new Set([
  'rateLimits',
  'rateLimits.maxDispatchesPerSecond',
  'rateLimits.maxConcurrentDispatches',
  'retryConfig',
  ...[...RETRY_FIELDS].map((field) => `retryConfig.${field}`),
  'appEngineRoutingOverride',
  'stackdriverLoggingConfig',
  'stackdriverLoggingConfig.samplingRatio',
]);

/**
 * A request's Queue read into the queue model: over Cloud Tasks' defaults
 * (create: `base` null) or over the queue as it is (patch), taking only
 * the paths of `mask` when one is given (else every field the body sets).
 * Output-only fields (state, purgeTime, maxBurstSize) are ignored, as
 * Google's server ignores them; unknown fields are refused naming them.
 */
export function queueFromJson(
  body: unknown,
  queueId: string,
  base: QueueConfig | null,
  mask: readonly string[] | null,
): QueueConfig {
  const queue = objectAt(body, 'queue');
  refuseUnknown(queue, QUEUE_FIELDS, 'queue');
  const given = new Map<string, (s: CloudTasksSettings) => void>();
  const rate = queue.rateLimits === undefined ? null : objectAt(queue.rateLimits, 'queue.rate_limits');
  if (rate !== null) {
    refuseUnknown(rate, RATE_FIELDS, 'queue.rate_limits');
    if (rate.maxDispatchesPerSecond !== undefined) {
      const value = numberAt(rate.maxDispatchesPerSecond, 'queue.rate_limits.max_dispatches_per_second');
      if (!(value > 0 && value <= MAX_RATE))
        throw invalid('queue.rate_limits.max_dispatches_per_second', `must be above 0 and at most ${MAX_RATE}`, value);
      given.set('rateLimits.maxDispatchesPerSecond', (s) => (s.rate = value));
    }
    if (rate.maxConcurrentDispatches !== undefined) {
      const value = integerAt(rate.maxConcurrentDispatches, 'queue.rate_limits.max_concurrent_dispatches');
      if (value < 1 || value > MAX_CONCURRENT)
        throw invalid('queue.rate_limits.max_concurrent_dispatches', `must be 1 to ${MAX_CONCURRENT}`, value);
      given.set('rateLimits.maxConcurrentDispatches', (s) => (s.concurrent = value));
    }
  }
  const retry = queue.retryConfig === undefined ? null : objectAt(queue.retryConfig, 'queue.retry_config');
  if (retry !== null) {
    refuseUnknown(retry, RETRY_FIELDS, 'queue.retry_config');
    if (retry.maxAttempts !== undefined) {
      const value = integerAt(retry.maxAttempts, 'queue.retry_config.max_attempts');
      if (value < -1) throw invalid('queue.retry_config.max_attempts', 'must be -1 (unlimited) or more', value);
      // 0 is proto3's "not set": Cloud Tasks' default.
      given.set(
        'retryConfig.maxAttempts',
        (s) => (s.maxAttempts = value === 0 ? CLOUD_TASKS_DEFAULTS.maxAttempts : value),
      );
    }
    for (const [field, key, wire] of [
      ['maxRetryDuration', 'maxRetryMs', 'max_retry_duration'],
      ['minBackoff', 'minBackoffMs', 'min_backoff'],
      ['maxBackoff', 'maxBackoffMs', 'max_backoff'],
    ] as const) {
      if (retry[field] === undefined) continue;
      const ms = durationToMillis(parseDuration(retry[field], `queue.retry_config.${wire}`));
      if (ms < 0) throw invalid(`queue.retry_config.${wire}`, 'must not be negative', retry[field]);
      given.set(`retryConfig.${field}`, (s) => (s[key] = ms));
    }
    if (retry.maxDoublings !== undefined) {
      const value = integerAt(retry.maxDoublings, 'queue.retry_config.max_doublings');
      if (value < 0) throw invalid('queue.retry_config.max_doublings', 'must be 0 or more', value);
      given.set('retryConfig.maxDoublings', (s) => (s.maxDoublings = value));
    }
  }
  for (const [field, fields, wire] of [
    ['appEngineRoutingOverride', ROUTING_FIELDS, 'app_engine_routing_override'],
    ['stackdriverLoggingConfig', LOGGING_FIELDS, 'stackdriver_logging_config'],
  ] as const) {
    if (queue[field] === undefined) continue;
    const value = objectAt(queue[field], `queue.${wire}`);
    refuseUnknown(value, fields, `queue.${wire}`);
    given.set(field, (s) => (s.extras[field] = value));
  }
  const settings = base === null ? defaultSettings() : settingsOf(base);
  for (const [path, apply] of given) if (mask === null || maskCovers(mask, path)) apply(settings);
  if (settings.minBackoffMs > settings.maxBackoffMs)
    throw invalid(
      'queue.retry_config.min_backoff',
      'must not be above max_backoff',
      formatDuration(durationFromMillis(settings.minBackoffMs)),
    );
  return configOf(queueId, settings, base);
}

/** `updateMask` as sent (comma-separated; `retry_config.max_attempts` or `retryConfig.maxAttempts`), checked and in camelCase; null when absent. */
export function parseUpdateMask(text: string | undefined): string[] | null {
  if (text === undefined || text === '') return null;
  return text.split(',').map((raw) => {
    const path = raw
      .trim()
      .split('.')
      .map((part) => part.replace(/_([a-z])/g, (_m, letter: string) => letter.toUpperCase()))
      .join('.');
    if (!MASK_PATHS.has(path)) {
      throw new QueueError(
        'INVALID_REQUEST',
        `Invalid update_mask provided: "${raw.trim()}" is not a field of Queue that can be updated ` +
          `(one of ${[...MASK_PATHS].join(', ')})`,
        { field: 'update_mask' },
      );
    }
    return path;
  });
}

function maskCovers(mask: readonly string[], path: string): boolean {
  return mask.some((entry) => entry === path || path.startsWith(`${entry}.`));
}

function configOf(name: string, s: CloudTasksSettings, base: QueueConfig | null): QueueConfig {
  return {
    name,
    mode: 'push',
    maxLeases: s.maxAttempts === -1 ? null : Math.max(0, s.maxAttempts - 1),
    storageLimitBytes: base?.storageLimitBytes ?? null,
    leaseRate: null,
    retry: {
      ageLimitSeconds: s.maxRetryMs === 0 ? null : s.maxRetryMs / 1000,
      minBackoffSeconds: s.minBackoffMs / 1000,
      maxBackoffSeconds: s.maxBackoffMs / 1000,
      maxDoublings: s.maxDoublings,
    },
    acl: base?.acl ?? { userEmails: [], writerEmails: [] },
    push: {
      ratePerSecond: s.rate,
      bucketSize: burstSizeOf(s.rate),
      maxConcurrentRequests: s.concurrent,
      targetUrl: null,
      target: null,
    },
    ...(Object.keys(s.extras).length === 0 ? {} : { apiExtras: s.extras }),
  };
}

function objectAt(value: unknown, field: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new QueueError('INVALID_REQUEST', `Invalid value at '${field}': expected an object`, { field });
  }
  return value as Record<string, unknown>;
}

function refuseUnknown(value: Record<string, unknown>, known: ReadonlySet<string>, at: string): void {
  for (const key of Object.keys(value)) {
    if (!known.has(key)) {
      throw new QueueError(
        'INVALID_REQUEST',
        `Invalid JSON payload received. Unknown name ${JSON.stringify(key)} at '${at}': Cannot find field.`,
        { field: `${at}.${key}` },
      );
    }
  }
}

/** proto3 JSON numbers: a JSON number or a string holding one. */
function numberAt(value: unknown, field: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) throw invalid(field, 'must be a number', value);
  return n;
}

function integerAt(value: unknown, field: string): number {
  const n = numberAt(value, field);
  if (!Number.isSafeInteger(n)) throw invalid(field, 'must be an integer', value);
  return n;
}

function invalid(field: string, rule: string, value: unknown): QueueError {
  return new QueueError('INVALID_REQUEST', `Invalid value at '${field}' (${JSON.stringify(value)}): ${rule}`, {
    field,
  });
}
