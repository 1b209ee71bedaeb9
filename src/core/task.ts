import type { PushMethod, PushRequest, TaskRetryOptions } from './push/push-task.js';

/**
 * A task as the service hands it out. Times are microseconds since the Unix
 * epoch, the precision PostgreSQL keeps, so `etaUsec` can serve as the lease
 * token exactly (a JavaScript Date would round it to milliseconds).
 */
export interface Task {
  readonly name: string;
  readonly queueName: string;
  readonly payload: Buffer;
  readonly tag: string | null;
  /** Leases so far: 1 after the first lease. */
  readonly retryCount: number;
  /** When the task becomes leasable: its schedule time, or while leased, its lease expiry (the lease token). */
  readonly etaUsec: number;
  /** When the task was added. */
  readonly enqueuedUsec: number;
  /**
   * The message of the last failure a worker reported (`failTask`, the
   * worker runner), or null; present on tasks read from the store.
   */
  readonly lastError?: string | null;
  /** A push task's request (url, method, headers, retry rules, deadline); absent on pull tasks. */
  readonly push?: PushRequest;
  /**
   * A push task's delivery so far (reads only): `retryCount` is its attempts,
   * and `etaUsec` its next attempt (or, while in flight, when its claim ends).
   */
  readonly delivery?: PushDelivery;
}

/** Where a push task's delivery stands. */
export interface PushDelivery {
  /** Attempts that got a response. */
  readonly executionCount: number;
  /** The last attempt's HTTP status; null when none yet, or no response. */
  readonly lastStatus: number | null;
  /** Why the last attempt failed. */
  readonly lastError: string | null;
  /** A request is in flight now. */
  readonly inFlight: boolean;
}

/** What a producer gives to `add`. */
export interface TaskOptions {
  /** Task name, `^[a-zA-Z0-9_-]{1,500}$`; generated when absent (recommended). */
  readonly name?: string;
  /** Bytes, or a string stored as UTF-8. At most 1 MB (a push task's url, headers and body: 100 KiB). */
  readonly payload?: Uint8Array | string;
  /** Leases can be restricted to one tag. At most 500 bytes. */
  readonly tag?: string | null;
  /**
   * PULL for a pull queue (its default). On a push queue, the HTTP method of
   * the delivery: POST (the default; PUSH means the same), GET, PUT, DELETE,
   * HEAD or PATCH.
   */
  readonly method?: 'PULL' | 'PUSH' | PushMethod;
  /** Push queues: path and query the task is delivered to, relative to the queue's base URL (default `/_ah/queue/<queue>`). */
  readonly url?: string;
  /** Push queues: request headers (`X-AppEngine-*` except `X-AppEngine-FailFast` and `X-AppEngine-Current-Namespace` are dropped). */
  readonly headers?: Readonly<Record<string, string>> | readonly (readonly [string, string])[];
  /** Push queues: form fields, sent as the body of POST/PUT/PATCH, else as the query string. Not with `payload`. */
  readonly params?: Readonly<Record<string, string | readonly string[]>>;
  /** Push queues: this task's retry rules, replacing the queue's as a whole. */
  readonly retryOptions?: TaskRetryOptions;
  /** Push queues: how long a delivery may take, 15 to 86400 seconds (default 600). */
  readonly dispatchDeadlineSeconds?: number;
  /** Seconds from now until the task may be leased (at most 30 days). */
  readonly countdownSeconds?: number;
  /** Absolute time from which the task may be leased (at most 30 days ahead). */
  readonly eta?: Date;
  /** The same as `eta`, in microseconds since the epoch (REST `leaseTimestamp`). */
  readonly etaUsec?: number;
}

/** The characters a task name may have, as a character class's body (the SQL API's add_tasks is generated from it). */
export const TASK_NAME_CHARS = 'a-zA-Z0-9_-';
/** The longest task name, in characters. */
export const TASK_NAME_MAX_LENGTH = 500;
/** App Engine's task-name rule (taskqueue.py `_TASK_NAME_PATTERN`): `^[a-zA-Z0-9_-]{1,500}$`. */
export const TASK_NAME_PATTERN = new RegExp(`^[${TASK_NAME_CHARS}]{1,${TASK_NAME_MAX_LENGTH}}$`);

/**
 * A new name in the service's generated form (see generated-name.ts): 24
 * URL-safe characters carrying their creation time and a check.
 */
export { generateTaskName } from './generated-name.js';

/** Converts the microsecond timestamps of a task to a Date (millisecond precision). */
export function usecToDate(usec: number): Date {
  return new Date(Math.floor(usec / 1000));
}
