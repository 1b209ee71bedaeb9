import type { Logger } from '../logger.js';
import type { WorkerErrorKind } from './worker-backend.js';
import type { WorkerListeners, WorkerState } from './worker-events.js';

const DESCRIPTIONS: Record<'paused' | 'unavailable' | 'error', string> = {
  paused: 'the queue is paused',
  unavailable: 'the queue cannot be reached',
  error: 'leases fail',
};

/**
 * A worker's state, and how it reports trouble: every failed call is an
 * `error` event, but the log gets one line per change of state (backing
 * off, leasing again), not one per attempt.
 */
export class WorkerStatus<T> {
  readonly #listeners: WorkerListeners<T>;
  readonly #logger: Logger;
  readonly #queue: string;
  #state: WorkerState = 'running';
  /** Failed calls in a row, for the lease loop's back-off; 0 once one succeeds. */
  failures = 0;

  constructor(listeners: WorkerListeners<T>, logger: Logger, queue: string) {
    this.#listeners = listeners;
    this.#logger = logger;
    this.#queue = queue;
  }

  get state(): WorkerState {
    return this.#state;
  }

  /** A call failed: report it, and log once per change of state, not per attempt. */
  trouble(kind: WorkerErrorKind, error: unknown): void {
    const state = kind === 'lease-lost' ? 'error' : kind;
    this.#listeners.emit('error', error);
    if (this.#state === state) return;
    this.#logger.warn(
      { queue: this.#queue, state, err: error instanceof Error ? error.message : String(error) },
      `worker: ${DESCRIPTIONS[state]}; backing off until it recovers`,
    );
    this.set(state);
  }

  /** A call succeeded: back to running if the worker was backing off. */
  recovered(): void {
    this.failures = 0;
    if (this.#state === 'running' || this.#state === 'stopping') return;
    this.#logger.info({ queue: this.#queue, after: this.#state }, 'worker: leasing again');
    this.set('running');
  }

  set(state: WorkerState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#listeners.emit('state', state);
  }
}
