/**
 * Validated queue configuration, as read from queue.xml or queue.yaml.
 * Everything here is plain readonly data: `config/` builds it, the rest of the
 * service only reads it.
 */

/** The name of the queue that always exists, configured or not. */
export const DEFAULT_QUEUE_NAME = 'default';

/** App Engine's queue-name rule (taskqueue.py `_QUEUE_NAME_PATTERN`). */
export const QUEUE_NAME_PATTERN = /^[a-zA-Z0-9-]{1,100}$/;

export type QueueMode = 'pull' | 'push';

/** How many lease calls per window may return tasks; `null` means unlimited. */
export interface LeaseRate {
  /** Calls allowed per window. */
  readonly calls: number;
  /** Window length in seconds (1 for `20/s`, 60 for `600/m`, 3600 for `/h`, 86400 for `/d`). */
  readonly windowSeconds: number;
}

/** Lease rate of a queue that sets none: 10 lease calls per second return tasks (spec section 8). */
export const DEFAULT_LEASE_RATE: LeaseRate = { calls: 10, windowSeconds: 1 };

export interface QueueAcl {
  /** `<user-email>`: may lease, get, list, update, patch and delete. */
  readonly userEmails: readonly string[];
  /** `<writer-email>`: may insert. */
  readonly writerEmails: readonly string[];
}

/**
 * `<retry-parameters>` besides `<task-retry-limit>` (which stays `maxLeases`):
 * how long a failed task waits before it is tried again, and for push
 * queues how old it may grow. Pull queues use the backoff for failed tasks
 * (a worker's failure sets the lease to the backoff delay).
 */
export interface RetryParameters {
  /** `<task-age-limit>` in seconds, measured from the first attempt; null = none. Push queues only. */
  readonly ageLimitSeconds: number | null;
  /** `<min-backoff-seconds>`: the first retry's delay. */
  readonly minBackoffSeconds: number;
  /** `<max-backoff-seconds>`: no delay is longer. */
  readonly maxBackoffSeconds: number;
  /** `<max-doublings>`: how often the delay doubles before it grows linearly. */
  readonly maxDoublings: number;
}

/** App Engine's defaults (taskqueue_service.proto `TaskQueueRetryParameters`). */
export const DEFAULT_RETRY_PARAMETERS: RetryParameters = {
  ageLimitSeconds: null,
  minBackoffSeconds: 0.1,
  maxBackoffSeconds: 3600,
  maxDoublings: 16,
};

export interface QueueConfig {
  readonly name: string;
  readonly mode: QueueMode;
  /** `<retry-parameters><task-retry-limit>`: a task may be leased at most this often; null = unlimited. */
  readonly maxLeases: number | null;
  /** Extension `<storage-limit>` inside `<queue>`, in bytes; null = none. */
  readonly storageLimitBytes: number | null;
  /** Extension `<lease-rate>`: `20/s`, `600/m` or `unlimited` (null). */
  readonly leaseRate: LeaseRate | null;
  /** The rest of `<retry-parameters>`; DEFAULT_RETRY_PARAMETERS when the file sets none. */
  readonly retry: RetryParameters;
  readonly acl: QueueAcl;
}

export interface ServiceConfig {
  /** Where the configuration came from (a path, or `built-in`), for messages. */
  readonly source: string;
  /** `<total-storage-limit>` at the root, in bytes; null = none. */
  readonly totalStorageLimitBytes: number | null;
  /** `<admin-email>` elements at the root: project administrators. */
  readonly adminEmails: readonly string[];
  /** Every queue, `default` included, in file order. */
  readonly queues: readonly QueueConfig[];
}

/** The configuration of the `default` queue when the file does not define it. */
export function defaultQueueConfig(): QueueConfig {
  return {
    name: DEFAULT_QUEUE_NAME,
    mode: 'push',
    maxLeases: null,
    storageLimitBytes: null,
    leaseRate: DEFAULT_LEASE_RATE,
    retry: DEFAULT_RETRY_PARAMETERS,
    acl: { userEmails: [], writerEmails: [] },
  };
}
