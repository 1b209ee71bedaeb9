import type { Ledger } from './ledger.js';
import type { RestCaller } from './rest-caller.js';

/** The queues the harness configures (see queue-config.ts). */
export const MAIN_QUEUE = 'torture';
export const LIMITED_QUEUE = 'limited';
/** The queue of the runner phase: consumers built on the REST worker runner. */
export const RUNNER_QUEUE = 'runners';
/** The push phase's queues (see push-phase.ts): one bounded by its concurrency, one by its rate and bucket. */
export const PUSH_QUEUE = 'push-hooks';
export const RATED_PUSH_QUEUE = 'push-rated';
export const PUSH_MAX_CONCURRENT = 48;
export const RATED_PUSH = { ratePerSecond: 40, bucketSize: 8 } as const;
/** The claim-recovery phase's queue (push-claim-recovery.ts): two requests in flight at most, the default dispatch deadline. */
export const CAPPED_PUSH_QUEUE = 'push-capped';
export const CAPPED_MAX_CONCURRENT = 2;
/** The main queue's task-retry-limit: a task may be leased at most this often. */
export const RETRY_LIMIT = 3;
/** The limited queue's storage limit, bytes. */
export const STORAGE_LIMIT = 64 * 1024;
/** Payloads are 0 to this many bytes. */
export const MAX_PAYLOAD = 2048;

/** A departure from what the service promises, seen by a client while it ran. */
export interface Anomaly {
  readonly what: string;
  readonly detail: string;
}

/** What producers and consumers share. */
export interface Workload {
  /** Which run of this process (task names carry it, so that runs never reuse a name). */
  readonly run: number;
  readonly caller: RestCaller;
  readonly ledger: Ledger;
  readonly anomalies: Anomaly[];
  /**
   * Counts answered operations: an add, a lease call, or a task's delete
   * (each part of a multipart batch is a call of its own, as Google's batch
   * runs it; each name of tasks:batchDelete is one delete).
   */
  countOps(n: number): void;
  /** True while the main queue holds more tasks than the run allows (producers wait). */
  backlogFull(): boolean;
  /** True once the run has reached its op count or its time bound. */
  stopped(): boolean;
  /** Requests per second the clients may send in all (0 = as fast as they can); read on every request. */
  pace(): Promise<void>;
}

/** `/taskqueue/v1beta2/projects/local/taskqueues/{queue}`. */
export function queuePath(queue: string): string {
  return `/taskqueue/v1beta2/projects/local/taskqueues/${queue}`;
}

export function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

export function anomaly(workload: Workload, what: string, detail: string): void {
  if (workload.anomalies.length < 1000) workload.anomalies.push({ what, detail: detail.slice(0, 500) });
}
