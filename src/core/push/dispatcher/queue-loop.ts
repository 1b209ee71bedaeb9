import type { QueueConfig } from '../../queue-config.js';
import type { DeliveredPush } from './push-store.js';

/** A push queue to dispatch: its configuration and row id. */
export interface DispatchedQueue {
  readonly queueId: number;
  readonly config: QueueConfig;
}

/** One queue's loop state. */
export interface QueueLoop {
  readonly queue: DispatchedQueue;
  inFlight: number;
  /** Set by wake(): something changed since the loop last claimed. */
  woken: boolean;
  /** Ends the current wait, if one runs. */
  interrupt: (() => void) | null;
  /** Whether the loop still claims: its successes then go out with its next claim. */
  claiming: boolean;
  /** Set when the queue is no longer dispatched here (deleted, or changed: a new loop takes over). */
  retired: boolean;
  /** Successes waiting for the next claim to write them (their slots are free once it has). */
  successes: PendingSuccess[];
  done: Promise<void>;
}

/** A request's place in its queue's count of requests in flight. */
export interface Slot {
  /** Set when the loop counted it free (a claim wrote its success and refilled it). */
  freed: boolean;
}

/** A success handed to the queue's loop: resolved with whether its claim still held. */
export interface PendingSuccess {
  readonly delivered: DeliveredPush;
  readonly slot: Slot;
  readonly resolve: (held: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/** A queue's loop state before its loop runs: nothing in flight, claiming. */
export function queueLoop(queue: DispatchedQueue): QueueLoop {
  return {
    queue,
    inFlight: 0,
    woken: false,
    interrupt: null,
    claiming: true,
    retired: false,
    successes: [],
    done: Promise.resolve(),
  };
}

/** Tells the loop something changed: it claims again without waiting out its wait. */
export function wake(loop: QueueLoop): void {
  loop.woken = true;
  loop.interrupt?.();
}
