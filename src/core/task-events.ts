import type { WorkerMetrics } from './worker/worker-events.js';

/**
 * What the core reports as tasks move through a queue, so metrics (or
 * anything else) can count them without the core knowing about Prometheus.
 * Each call carries how many tasks one operation moved; implementations must
 * be cheap and must not throw.
 */
export interface TaskEvents {
  added(queue: string, count: number): void;
  leased(queue: string, count: number): void;
  deleted(queue: string, count: number): void;
  /** Leases that lapsed: tasks taken again (or dead-lettered) after their lease expired undeleted. */
  expired(queue: string, count: number): void;
  /** Tasks moved to the dead letters by the retry limit. */
  deadLettered(queue: string, count: number): void;
  /** Where worker runners of this service report (metrics); none when absent. */
  readonly worker?: WorkerMetrics;
}

/** Events that go nowhere: the default where none are given. */
export const noTaskEvents: TaskEvents = {
  added() {},
  leased() {},
  deleted() {},
  expired() {},
  deadLettered() {},
};
