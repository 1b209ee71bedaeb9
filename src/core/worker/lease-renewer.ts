import type { HeldTask } from './held-task.js';
import { RenewalSchedule } from './renewal-schedule.js';
import type { WorkerBackend, WorkerTask } from './worker-backend.js';
import type { WorkerListeners, WorkerMetrics } from './worker-events.js';
import type { WorkerStatus } from './worker-status.js';

/** What a renewer needs of its worker. */
export interface LeaseRenewerParts<T extends WorkerTask> {
  readonly held: Iterable<HeldTask<T>>;
  readonly backend: WorkerBackend<T>;
  readonly leaseSeconds: number;
  readonly metrics: WorkerMetrics;
  readonly listeners: WorkerListeners<T>;
  readonly status: WorkerStatus<T>;
  /** The lease is gone (refused, or ran out while the queue could not be reached). */
  readonly lost: (held: HeldTask<T>, detail: string, cause?: unknown) => void;
}

/**
 * Keeps a worker's leases alive while their handlers run: each is renewed
 * when half of it has passed, and retried sooner (a quarter of what is
 * left, at most a second) while the queue cannot be reached, until the
 * lease runs out. A task leaves renewal by setting its renewAt to Infinity
 * (ended, settled or released); its `renewing` promise is what a delete or
 * a release waits for, so no renewal changes the token under them.
 */
export class LeaseRenewer<T extends WorkerTask> {
  readonly #parts: LeaseRenewerParts<T>;
  readonly #schedule: RenewalSchedule<HeldTask<T>>;

  constructor(parts: LeaseRenewerParts<T>) {
    this.#parts = parts;
    this.#schedule = new RenewalSchedule(parts.held, (held) => this.#due(held));
  }

  /** Tasks leased now renew by this time (their renewAt is set): make sure the timer fires by then. */
  wake(at: number): void {
    this.#schedule.wake(at);
  }

  stop(): void {
    this.#schedule.stop();
  }

  #due(held: HeldTask<T>): void {
    held.renewAt = Infinity;
    held.renewing = this.#renew(held).finally(() => (held.renewing = null));
  }

  #scheduleNext(held: HeldTask<T>, afterMs = (this.#parts.leaseSeconds * 1000) / 2): void {
    if (held.ended || held.settled || held.released) return;
    held.renewAt = Date.now() + afterMs;
    this.#schedule.wake(held.renewAt);
  }

  async #renew(held: HeldTask<T>): Promise<void> {
    if (held.settled) return;
    const { backend, leaseSeconds, metrics, listeners, status, lost } = this.#parts;
    try {
      held.token = await backend.renew(held, leaseSeconds);
      held.expiresAt = Date.now() + leaseSeconds * 1000;
      metrics.renewed(backend.queueName);
      listeners.emit('renewed', held.task);
      this.#scheduleNext(held);
    } catch (error) {
      if (held.settled) return;
      const kind = backend.classify(error);
      if (kind === 'lease-lost') return lost(held, 'it could not be renewed', error);
      status.trouble(kind, error);
      const left = held.expiresAt - Date.now();
      // Unreachable until the lease ran out: someone else may hold the task now.
      if (left <= 0) return lost(held, 'it ran out while the queue could not be reached', error);
      this.#scheduleNext(held, Math.max(50, Math.min(left / 4, 1000)));
    }
  }
}
