import { monotonicClock, type Clock } from '../../clock.js';
import { silentLogger, type Logger } from '../../logger.js';
import type { PushStore } from './push-store.js';

/** How often a dispatching process renews its push_dispatchers row. */
export const HEARTBEAT_MS = 3_000;
/**
 * How long a row lives past its last heartbeat: five missed heartbeats. A
 * process silent for this long is dead, and the next heartbeat of any other
 * (every 3 s) makes its claims due again: a kill -9 frees its slots and
 * tasks in at most 18 s, where a claim alone held them for the dispatch
 * deadline plus 30 s (10.5 minutes by default). Shorter would fence off a
 * process whose event loop or pool stalls for a few seconds on a loaded
 * machine (its requests are then cut and delivered again).
 */
export const DISPATCHER_LEASE_MS = 15_000;
/**
 * The process cuts its requests this long before its row could expire,
 * counting from the moment it sent its last heartbeat that was written
 * (the row's new time is later than that): room for a timer that fires
 * late and for the abort to reach the socket, so that its requests have
 * ended before another process may claim their tasks.
 */
export const FENCE_MARGIN_MS = 3_000;
/** A failed registration is tried again after this long. */
const REGISTER_RETRY_MS = 1_000;

/** A registration of this process that was alive when asked: the id its claims carry, and the signal that cuts its requests. */
export interface DispatcherTerm {
  readonly id: string;
  readonly signal: AbortSignal;
}

interface HeldTerm extends DispatcherTerm {
  readonly abort: AbortController;
  /** Until when (on the monotonic clock) this process may still deliver under it. */
  validUntil: number;
}

export interface DispatcherLivenessOptions {
  readonly store: PushStore;
  readonly logger?: Logger;
  /** A term began: loops that waited for one claim now. */
  readonly onTerm?: () => void;
  /** A heartbeat made the claims of dead processes in these queues due again. */
  readonly onRecovered?: (queueIds: readonly number[]) => void;
  /** Monotonic milliseconds (tests step it). */
  readonly clock?: Clock;
}

/**
 * This process's liveness as a push dispatcher (sql/0012). It registers a
 * row, renews it every HEARTBEAT_MS, and each renewal recovers the claims
 * of processes whose row expired. If its own renewal fails for
 * DISPATCHER_LEASE_MS - FENCE_MARGIN_MS, or finds its row expired, the term
 * ends: every request under it is aborted (never an outcome written after
 * another process could have taken the task), no claim is made until a new
 * row is registered, and the old row's claims are recovered like a dead
 * process's. A paused or cut-off process thus ends up as a dead one:
 * at-least-once, never two requests for one task from live terms.
 */
export class DispatcherLiveness {
  readonly #options: DispatcherLivenessOptions;
  readonly #logger: Logger;
  readonly #clock: Clock;
  #term: HeldTerm | null = null;
  #fence: NodeJS.Timeout | undefined;
  #stopped = false;
  /** Aborted by stop(): a statement that hangs (a database out of reach) is not waited for. */
  readonly #stopping = new AbortController();
  #interrupt: (() => void) | null = null;
  #running: Promise<void> = Promise.resolve();
  #started = false;
  #failing = false;

  constructor(options: DispatcherLivenessOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#clock = options.clock ?? monotonicClock;
  }

  start(): void {
    // Once: the dispatcher asks again whenever queues come later (update()).
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#running = this.#run();
  }

  /** The term to claim under, or null while none is alive (not registered yet, or its heartbeat lapsed). */
  current(): DispatcherTerm | null {
    const term = this.#term;
    return term !== null && this.#clock() < term.validUntil ? term : null;
  }

  /** Whether `term` is still this process's and may still deliver. */
  holds(term: DispatcherTerm): boolean {
    return this.#term === term && this.#clock() < this.#term.validUntil;
  }

  /** Stops renewing, and retires the row (its claims left are due again at once). Call after the last request ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopping.abort();
    this.#interrupt?.();
    await this.#running;
    clearTimeout(this.#fence);
    const term = this.#term;
    this.#term = null;
    if (term === null) return;
    await this.#options.store.retireDispatcher(term.id).catch((error: unknown) => {
      this.#logger.warn(
        { err: error },
        'push dispatch: could not retire this process; its claims are recovered when its row expires',
      );
    });
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      if (this.#term === null) {
        const sent = this.#clock();
        try {
          const registering = this.#options.store.registerDispatcher({ leaseMs: DISPATCHER_LEASE_MS });
          const id = await until(registering, this.#stopping.signal);
          if (id === null) {
            // Stopped while registering: the row, if it comes, is retired.
            void registering.then((late) => this.#options.store.retireDispatcher(late)).catch(() => {});
            break;
          }
          this.#begin(id, sent);
        } catch (error) {
          this.#warn(error, 'push dispatch: could not register this process; trying again in a second');
          await this.#sleep(REGISTER_RETRY_MS);
          continue;
        }
      }
      await this.#sleep(HEARTBEAT_MS);
      const term = this.#term;
      if (this.#stopped || term === null) continue;
      const sent = this.#clock();
      try {
        // Not waited for past the term's end (the fence) or stop: a new row is registered meanwhile.
        const beat = await until(
          this.#options.store.heartbeat({ dispatcherId: term.id, leaseMs: DISPATCHER_LEASE_MS }),
          AbortSignal.any([term.signal, this.#stopping.signal]),
        );
        if (beat === null || this.#term !== term) continue;
        if (!beat.alive) {
          this.#end(term, 'its heartbeat row had expired');
          continue;
        }
        this.#extend(term, sent);
        if (this.#failing) this.#logger.info({ dispatcher: term.id }, 'push dispatch: heartbeat written again');
        this.#failing = false;
        if (beat.recoveredQueueIds.length > 0) {
          this.#logger.info(
            { queueIds: beat.recoveredQueueIds },
            'push dispatch: recovered the claims of a dispatcher that stopped its heartbeat',
          );
          this.#options.onRecovered?.(beat.recoveredQueueIds);
        }
      } catch (error) {
        // The fence ends the term if this lasts; until then requests go on.
        this.#warn(error, 'push dispatch: heartbeat not written; requests in flight are cut if it stays so');
      }
    }
  }

  #begin(id: string, sent: number): void {
    const abort = new AbortController();
    const term: HeldTerm = { id, signal: abort.signal, abort, validUntil: sent };
    this.#term = term;
    this.#extend(term, sent);
    this.#failing = false;
    this.#logger.debug({ dispatcher: id }, 'push dispatch: registered');
    this.#options.onTerm?.();
  }

  /** The row was renewed by a statement sent at `sent`: its new expiry is at least a lease after that. */
  #extend(term: HeldTerm, sent: number): void {
    term.validUntil = sent + DISPATCHER_LEASE_MS - FENCE_MARGIN_MS;
    clearTimeout(this.#fence);
    this.#fence = setTimeout(
      () => this.#end(term, `no heartbeat written for ${(DISPATCHER_LEASE_MS - FENCE_MARGIN_MS) / 1000} s`),
      term.validUntil - this.#clock(),
    );
    this.#fence.unref();
  }

  #end(term: HeldTerm, reason: string): void {
    if (this.#term !== term) return;
    this.#term = null;
    clearTimeout(this.#fence);
    term.abort.abort(new Error(`push dispatcher ${term.id}: ${reason}`));
    this.#logger.warn(
      { dispatcher: term.id },
      `push dispatch: ${reason}; requests in flight cut (their tasks are delivered again, at least once), registering again`,
    );
    this.#interrupt?.();
  }

  #warn(error: unknown, message: string): void {
    if (this.#failing) this.#logger.debug({ err: error }, message);
    else this.#logger.warn({ err: error }, message);
    this.#failing = true;
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#interrupt = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.#interrupt = done;
    });
  }
}

/** `promise`'s value, or null as soon as `signal` aborts (the promise is left to settle unobserved). */
function until<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise<T | null>((resolve, reject) => {
    const aborted = () => resolve(null);
    signal.addEventListener('abort', aborted, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', aborted);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', aborted);
        reject(error);
      },
    );
  });
}
