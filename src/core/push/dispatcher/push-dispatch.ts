import type { PushEvents } from './push-transport.js';
import type { DispatchedQueue } from './queue-loop.js';

/** Push delivery running in this process. */
export interface PushDispatch {
  /** Claims nothing more; requests in flight get `graceMs` to finish. */
  stop(graceMs: number): Promise<void>;
  /**
   * Dispatches these push queues from now on (queues made, changed or
   * deleted through the Cloud Tasks API): a queue no longer given, or given
   * with other settings, stops claiming (its requests in flight finish);
   * a new or changed one starts.
   */
  update(queues: readonly DispatchedQueue[]): void;
}

/**
 * What the service gives push delivery when it starts it: its push queues
 * with their ids, and the name-hold rule on the service's own clock (a
 * delivered task whose name its form holds needs no tombstone row).
 */
export interface PushDispatchPlan {
  readonly queues: readonly DispatchedQueue[];
  readonly heldByForm: (name: string) => boolean;
  readonly events?: PushEvents;
}

/** Starts push delivery (the composition's: its transport and store); the service calls it. */
export type StartPushDispatch = (plan: PushDispatchPlan) => PushDispatch;
