import type { LeaseRate, QueueMode } from './queue-config.js';

/**
 * One queue at a glance, for operators (CLI `queues`, the console, metrics
 * gauges). All queues come from one query (`TaskQueueService.overview`).
 */
export interface QueueOverview {
  readonly name: string;
  readonly mode: QueueMode;
  /** Paused queues accept adds and deletes; leases return nothing. */
  readonly paused: boolean;
  /** Tasks leasable now (ETA passed, or lease lapsed). */
  readonly availableTasks: number;
  /** Tasks under a lease that has not run out. */
  readonly leasedTasks: number;
  /** Tasks never leased whose ETA lies ahead. */
  readonly delayedTasks: number;
  /** Seconds the longest-waiting available task has been leasable; null when none is. */
  readonly oldestAvailableAgeSeconds: number | null;
  readonly leasedLastMinute: number;
  readonly leasedLastHour: number;
  /** Dead letters held for this queue. */
  readonly deadLetters: number;
  /** Bytes the queue's tasks count against storage limits. */
  readonly storageBytes: number;
  /** The queue's `<storage-limit>`, or null. */
  readonly storageLimitBytes: number | null;
  /** `<task-retry-limit>`: leases a task may have; null = unlimited. */
  readonly retryLimit: number | null;
  /** `<lease-rate>`; null = unlimited. */
  readonly leaseRate: LeaseRate | null;
  /**
   * Pull leases with more than LONG_LEASE_MINUTES still to run: a worker
   * that died holding one keeps its task from every other worker until
   * then (docs/console.md, "Long leases"). 0 on a push queue. The store
   * always fills it; optional only so that hand-made overviews need not.
   */
  readonly longLeases?: number | undefined;
  /** Push queues: delivery settings and state, from the database. */
  readonly push?: PushQueueOverview;
}

/** A lease with more than this many minutes still to run is a long lease (sql/routines/queue_future_tasks.sql). */
export const LONG_LEASE_MINUTES = 15;

/** A push queue's dispatch at a glance. */
export interface PushQueueOverview {
  readonly ratePerSecond: number;
  readonly bucketSize: number;
  readonly maxConcurrentRequests: number | null;
  readonly targetUrl: string | null;
  /** `<target>`: the App Engine service its tasks are for (routed by TASKQUEUE_TARGET_URLS); null = none. */
  readonly target: string | null;
  /** Requests in flight now, across every process. */
  readonly inFlight: number;
  /**
   * Tokens in the bucket now, as the next claim would find them (refilled
   * since the last claim, capped at the bucket size); null before the first
   * claim, when the bucket starts full.
   */
  readonly tokens: number | null;
  /** After a `Retry-After`: nothing is dispatched until then (microseconds since the epoch); null when not held. */
  readonly heldUntilUsec: number | null;
  /** After a 503: the bucket refills at half the rate until then; null when not slowed. */
  readonly slowedUntilUsec: number | null;
}
