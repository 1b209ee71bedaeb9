import { QueueError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';

/** Options of `queue.work(handler, options)` and of the REST client's `work`. */
export interface WorkerOptions {
  /** Tasks processed at once (1 to 10 000, default 1). */
  readonly concurrency?: number;
  /** Lease length in seconds (default 60); renewed while a handler runs. */
  readonly leaseSeconds?: number;
  /**
   * Tasks leased per call (1 to 1000, default = concurrency). The worker
   * never holds more than `concurrency` plus one batch.
   */
  readonly batchSize?: number;
  /** Lease only tasks with this tag (implies groupByTag). */
  readonly tag?: string;
  /** Lease only tasks sharing one tag per call: `tag`, or the oldest task's. */
  readonly groupByTag?: boolean;
  /**
   * The longest one lease call waits for tasks on an empty queue (long-poll),
   * and the longest back-off after errors, in ms (default 10 000; a lease
   * call waits at most 60 000).
   */
  readonly pollIntervalMs?: number;
  /** On stop, how long running handlers may go on before their signals abort (ms, default 30 000). */
  readonly gracePeriodMs?: number;
  /** Stops the worker when aborted (as `stop()`). */
  readonly signal?: AbortSignal;
  /** Where state changes are logged (once per change, never a payload); default: nowhere. */
  readonly logger?: Logger;
}

/** The options with their defaults applied, checked. */
export interface ResolvedWorkerOptions {
  readonly concurrency: number;
  readonly leaseSeconds: number;
  readonly batchSize: number;
  readonly tag: string | undefined;
  readonly groupByTag: boolean;
  readonly pollIntervalMs: number;
  readonly gracePeriodMs: number;
  readonly signal: AbortSignal | undefined;
  readonly logger: Logger;
}

/** Longest lease one call may ask for: one week. */
const MAX_LEASE_SECONDS = 604_800;

export function resolveWorkerOptions(
  options: WorkerOptions,
  queue: string,
  limits: { maxWaitMs: number },
): ResolvedWorkerOptions {
  const concurrency = integer(options.concurrency ?? 1, 'concurrency', 1, 10_000, queue);
  const batchSize = integer(options.batchSize ?? concurrency, 'batchSize', 1, 1000, queue);
  const leaseSeconds = options.leaseSeconds ?? 60;
  if (
    typeof leaseSeconds !== 'number' ||
    !Number.isFinite(leaseSeconds) ||
    leaseSeconds <= 0 ||
    leaseSeconds > MAX_LEASE_SECONDS
  ) {
    throw invalid('leaseSeconds', `must be a number of seconds above 0 and at most ${MAX_LEASE_SECONDS}`, queue);
  }
  const pollIntervalMs = integer(options.pollIntervalMs ?? 10_000, 'pollIntervalMs', 1, 3_600_000, queue);
  const gracePeriodMs = integer(options.gracePeriodMs ?? 30_000, 'gracePeriodMs', 0, 86_400_000, queue);
  if (options.tag !== undefined && typeof options.tag !== 'string') throw invalid('tag', 'must be a string', queue);
  return {
    concurrency,
    batchSize,
    leaseSeconds,
    tag: options.tag,
    groupByTag: options.groupByTag === true || options.tag !== undefined,
    pollIntervalMs: Math.min(pollIntervalMs, limits.maxWaitMs),
    gracePeriodMs,
    signal: options.signal,
    logger: options.logger ?? silentLogger,
  };
}

function integer(value: unknown, field: string, min: number, max: number, queue: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(field, `must be an integer from ${min} to ${max}, got ${String(value)}`, queue);
  }
  return value;
}

function invalid(field: string, message: string, queue: string): QueueError {
  return new QueueError('INVALID_REQUEST', `worker option ${field} ${message}`, { queue, field });
}
