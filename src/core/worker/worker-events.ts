import type { WorkerErrorKind } from './worker-backend.js';

/** Where a worker stands: running normally, or backing off (and why), or stopped. */
export type WorkerState = 'running' | Exclude<WorkerErrorKind, 'lease-lost'> | 'stopping' | 'stopped';

/** The events of a worker, with their listeners' arguments. */
export interface WorkerEventMap<T> {
  /** A handler succeeded and its task was deleted. */
  processed: (task: T, seconds: number) => void;
  /** A handler failed; the task comes back after the queue's backoff delay. */
  failed: (task: T, error: unknown) => void;
  /** The lease on a task was lost; its handler's signal aborted (if it was running) and its success deletes nothing. */
  'lease-lost': (task: T, reason: Error) => void;
  /** A running task's lease was extended. */
  renewed: (task: T) => void;
  /** A call to the queue failed (the worker backs off and retries by itself). */
  error: (error: unknown) => void;
  /** The worker changed state (running, backing off, stopping, stopped). */
  state: (state: WorkerState) => void;
}

/**
 * The counters and histogram a worker feeds (the service's metrics: see
 * ops/service-metrics.ts). Implementations must be cheap and never throw.
 */
export interface WorkerMetrics {
  processed(queue: string, seconds: number): void;
  failed(queue: string, seconds: number): void;
  leaseLost(queue: string): void;
  renewed(queue: string): void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- listeners of every event share one set
type Listener = (...args: any[]) => void;

export const noWorkerMetrics: WorkerMetrics = {
  processed() {},
  failed() {},
  leaseLost() {},
  renewed() {},
};

/** A small typed listener registry; a listener that throws is ignored (it must not stop the worker). */
export class WorkerListeners<T> {
  readonly #listeners = new Map<keyof WorkerEventMap<T>, Set<Listener>>();

  on<E extends keyof WorkerEventMap<T>>(event: E, listener: WorkerEventMap<T>[E]): void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener as Listener);
  }

  off<E extends keyof WorkerEventMap<T>>(event: E, listener: WorkerEventMap<T>[E]): void {
    this.#listeners.get(event)?.delete(listener as Listener);
  }

  emit<E extends keyof WorkerEventMap<T>>(event: E, ...args: Parameters<WorkerEventMap<T>[E]>): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of set) {
      try {
        (listener as (...a: unknown[]) => void)(...args);
      } catch {
        // A listener's failure is its own business.
      }
    }
  }
}
