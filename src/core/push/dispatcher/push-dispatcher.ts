import { silentLogger, type Logger } from '../../logger.js';
import { DEFAULT_PUSH_SETTINGS, routeOfTarget, type PushQueueSettings, type TargetRoutes } from '../../queue-config.js';
import { PUSH_LIMITS, type PushRequest } from '../push-task.js';
import { deliveryUrl } from '../push-url.js';
import { mayRetry, retryBackoffSeconds } from '../../retry-backoff.js';
import { DispatcherLiveness, type DispatcherTerm } from './dispatcher-liveness.js';
import { pushHeaders } from './push-headers.js';
import type { ClaimedPushTask, DeliveredPush, PushStore } from './push-store.js';
import { queueLoop, wake, type DispatchedQueue, type QueueLoop, type Slot } from './queue-loop.js';
export type { DispatchedQueue } from './queue-loop.js';
import { noPushEvents, type PushEvents, type PushTokenSigner, type PushTransport } from './push-transport.js';

export interface PushDispatcherOptions {
  readonly store: PushStore;
  readonly transport: PushTransport;
  readonly queues: readonly DispatchedQueue[];
  /** Signs each request's Bearer token; absent = unsigned (TASKQUEUE_PUSH_SIGNING=off). */
  readonly signer?: PushTokenSigner;
  readonly events?: PushEvents;
  readonly logger?: Logger;
  /** Whether a task's name is held by its form (a delivered task then needs no tombstone row). */
  readonly heldByForm?: (name: string) => boolean;
  /** Requests in flight per queue in this process at most (default 100); the queue's own cap holds across processes. */
  readonly localConcurrency?: number;
  /** App Engine targets to base URLs (TASKQUEUE_TARGET_URLS): a cron firing's job target goes to its route. */
  readonly targetUrls?: TargetRoutes;
}

/** How long a claim outlives the task's deadline: time to write the outcome. */
const CLAIM_MARGIN_MS = 30_000;
/** Longest idle wait: a change nothing announces (a resumed queue) is seen within it. */
const MAX_IDLE_MS = 30_000;
/** Shortest pause before claiming again when a claim found nothing it could take. */
const MIN_RETRY_MS = 10;
/** After a 503: half rate for this long. */
const SLOW_AFTER_503_MS = 30_000;
/** Longest Retry-After honoured. */
const MAX_RETRY_AFTER_S = 3600;

/**
 * Delivers push tasks: one loop per push queue claims due tasks within the
 * queue's bucket and concurrency (claim_push_tasks holds them across
 * processes), sends each request, and writes its outcome. A success is
 * written by the loop's next claim (deleted, then its slot refilled, in one
 * round trip); other outcomes on their own. It waits for new tasks
 * (notifications), the next token or ETA, or a finished request; it never
 * polls at a fixed short interval. Claims are made under this process's
 * push_dispatchers row (DispatcherLiveness): while it has no live row it
 * claims nothing, and when its row lapses its requests are cut.
 */
export class PushDispatcher {
  readonly #options: PushDispatcherOptions;
  readonly #logger: Logger;
  readonly #events: PushEvents;
  readonly #loops: QueueLoop[] = [];
  /** Loops update() retired whose last turn has not ended yet: stop() waits for them too. */
  readonly #retired = new Set<QueueLoop>();
  readonly #deliveries = new Set<Promise<void>>();
  readonly #stopRequests = new AbortController();
  readonly #abortRequests = new AbortController();
  readonly #liveness: DispatcherLiveness;
  /** Per term, the signal that cuts its requests: shutdown or the term's end (one per term, not per request). */
  readonly #termSignals = new WeakMap<DispatcherTerm, AbortSignal>();
  #stopping = false;

  constructor(options: PushDispatcherOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#events = options.events ?? noPushEvents;
    this.#liveness = new DispatcherLiveness({
      store: options.store,
      logger: this.#logger,
      onTerm: () => this.#loops.forEach(wake),
      onRecovered: (ids) => this.#loops.filter((loop) => ids.includes(loop.queue.queueId)).forEach(wake),
    });
  }

  /** Starts a loop for each push queue (#startLoop says which are dispatched). */
  start(): void {
    for (const queue of this.#options.queues) this.#startLoop(queue);
    // Claims are made under this process's push_dispatchers row (sql/0012).
    if (this.#loops.length > 0) this.#liveness.start();
  }

  /**
   * Dispatches these queues from now on (API-made queues come and go without a restart): the loop of a queue
   * no longer given, or changed, is retired (its requests in flight finish as usual); new ones start.
   */
  update(queues: readonly DispatchedQueue[]): void {
    if (this.#stopping) return;
    const given = new Map(queues.map((queue) => [queue.queueId, queue]));
    for (const loop of [...this.#loops]) {
      const next = given.get(loop.queue.queueId);
      if (next !== undefined && JSON.stringify(next.config) === JSON.stringify(loop.queue.config)) {
        given.delete(loop.queue.queueId);
        continue;
      }
      loop.retired = true;
      wake(loop);
      this.#loops.splice(this.#loops.indexOf(loop), 1);
      this.#retired.add(loop);
      void loop.done.then(() => this.#retired.delete(loop));
    }
    for (const queue of given.values()) this.#startLoop(queue);
    if (this.#loops.length > 0) this.#liveness.start();
  }

  /**
   * Starts a loop for a push queue with a rate above 0 and somewhere to deliver: its base URL, or with target
   * routes configured, its cron firings' job targets' routes (then it needs no base URL of its own).
   */
  #startLoop(queue: DispatchedQueue): void {
    const routed = (this.#options.targetUrls?.size ?? 0) > 0;
    const push = queue.config.push ?? DEFAULT_PUSH_SETTINGS;
    if (queue.config.mode !== 'push' || push.ratePerSecond <= 0) return;
    if ((push.baseUrl ?? push.targetUrl) === null) {
      if (!routed) {
        this.#logger.warn(
          { queue: queue.config.name },
          'push queue not dispatched: no <target-url> and no TASKQUEUE_PUSH_BASE_URL',
        );
        return;
      }
      this.#logger.info(
        { queue: queue.config.name },
        "push queue without <target-url> or TASKQUEUE_PUSH_BASE_URL: its cron firings go to their targets' routes (TASKQUEUE_TARGET_URLS); a task with no route goes to the dead letters",
      );
    }
    const loop = queueLoop(queue);
    loop.done = this.#run(loop);
    this.#loops.push(loop);
  }

  /**
   * Claims nothing more and lets requests in flight finish for up to
   * `graceMs`; those still running are then abandoned (their claims expire
   * and another process delivers them again).
   */
  async stop(graceMs: number): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#stopRequests.abort();
    for (const loop of this.#loops) wake(loop);
    await Promise.all([...this.#loops, ...this.#retired].map((loop) => loop.done));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all([...this.#deliveries]), grace]);
    clearTimeout(timer);
    this.#abortRequests.abort();
    await Promise.all([...this.#deliveries]);
    // The requests ended: the claims of those cut are due again at once, not when the row expires.
    await this.#liveness.stop();
  }

  async #run(loop: QueueLoop): Promise<void> {
    const { queueId, config } = loop.queue;
    const push = config.push ?? DEFAULT_PUSH_SETTINGS;
    const localCap = Math.min(push.maxConcurrentRequests ?? Infinity, this.#options.localConcurrency ?? 100);
    let failing = false;
    while (!this.#stopping && !loop.retired) {
      loop.woken = false;
      // Successes this claim writes first free their slots within it.
      const room = localCap - loop.inFlight + loop.successes.length;
      let waitMs: number | null = MAX_IDLE_MS;
      // No live registration (starting, or its heartbeat lapsed): no claim until one begins (onTerm wakes the loop).
      const term = this.#liveness.current();
      if (term === null) this.#writeSuccessesAlone(loop);
      else if (room > 0) {
        const successes = loop.successes;
        loop.successes = [];
        try {
          const claim = await this.#options.store.claim({
            queueId,
            queueName: config.name,
            ratePerSecond: push.ratePerSecond,
            bucketSize: push.bucketSize,
            maxConcurrentRequests: push.maxConcurrentRequests,
            limit: Math.min(room, 100),
            deadlineMs: PUSH_LIMITS.defaultDeadlineSeconds * 1000,
            marginMs: CLAIM_MARGIN_MS,
            delivered: successes.map((p) => p.delivered),
            dispatcherId: term.id,
          });
          // Their slots are free now (the claim counted them so): before any other turn of this loop reads inFlight.
          this.#release(loop, successes.length);
          successes.forEach((p, i) => {
            p.slot.freed = true;
            p.resolve(claim.delivered[i] ?? false);
          });
          if (failing) this.#logger.info({ queue: config.name }, 'push dispatch: claiming again');
          failing = false;
          // The term ended while claiming: start none. Their claims are under its row, recovered as a dead process's.
          if (this.#liveness.holds(term)) for (const task of claim.tasks) this.#start(loop, task, term);
          if (claim.tasks.length === Math.min(room, 100)) continue;
          waitMs =
            claim.waitMs === null
              ? MAX_IDLE_MS
              : Math.max(claim.tasks.length === 0 ? MIN_RETRY_MS : 0, Math.min(claim.waitMs, MAX_IDLE_MS));
        } catch (error) {
          // Their outcome is not written: each is delivered again when its claim expires (at least once).
          for (const p of successes) p.reject(error);
          if (!failing)
            this.#logger.warn(
              { queue: config.name, err: error },
              'push dispatch: claim failed; trying again in a second',
            );
          failing = true;
          waitMs = 1000;
        }
      }
      if (this.#stopping || loop.retired) break;
      await this.#wait(loop, waitMs, room > 0);
    }
    // No claim writes them any more: successes still to come go out on their own (delivered()).
    loop.claiming = false;
    this.#writeSuccessesAlone(loop);
  }

  /** Successes waiting for a claim, written each on its own (no claim is coming soon). */
  #writeSuccessesAlone(loop: QueueLoop): void {
    for (const p of loop.successes.splice(0)) this.#options.store.delivered(p.delivered).then(p.resolve, p.reject);
  }

  /** `count` requests of the loop's queue ended (their slots are free). */
  #release(loop: QueueLoop, count: number): void {
    if (count === 0) return;
    loop.inFlight -= count;
    this.#events.inFlight(loop.queue.config.name, -count);
  }

  /**
   * Writes a success: with the queue loop's next claim while it runs (one
   * round trip deletes it and refills its slot), else on its own.
   */
  #delivered(loop: QueueLoop, delivered: DeliveredPush, slot: Slot): Promise<boolean> {
    if (!loop.claiming) return this.#options.store.delivered(delivered);
    return new Promise<boolean>((resolve, reject) => {
      loop.successes.push({ delivered, slot, resolve, reject });
      wake(loop);
    });
  }

  /** Waits for `ms`, a notification of new tasks (when `notified`), a finished delivery, or stop. */
  async #wait(loop: QueueLoop, ms: number, notified: boolean): Promise<void> {
    if (ms <= 0 || loop.woken) return;
    const abort = new AbortController();
    const woken = new Promise<void>((resolve) => {
      loop.interrupt = () => {
        abort.abort();
        resolve();
      };
    });
    const ref = { queueId: loop.queue.queueId, queueName: loop.queue.config.name };
    const waiting = notified
      ? this.#options.store.waitForTasks({ ...ref, timeoutMs: ms, signal: abort.signal })
      : new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
    await Promise.race([waiting, woken]);
    loop.interrupt = null;
    abort.abort();
  }

  #start(loop: QueueLoop, task: ClaimedPushTask, term: DispatcherTerm): void {
    loop.inFlight++;
    this.#events.inFlight(loop.queue.config.name, 1);
    const slot: Slot = { freed: false };
    let signal = this.#termSignals.get(term);
    if (signal === undefined) {
      signal = AbortSignal.any([this.#abortRequests.signal, term.signal]);
      this.#termSignals.set(term, signal);
    }
    const delivery = this.#deliver(loop, task, slot, signal)
      .catch((error: unknown) => {
        this.#logger.warn(
          { queue: loop.queue.config.name, task: task.name, err: error },
          'push delivery: outcome not recorded; the task is delivered again when its claim expires',
        );
      })
      .then(() => {
        this.#deliveries.delete(delivery);
        // A slot the loop freed when its claim wrote the success was refilled by that claim.
        if (slot.freed) return;
        this.#release(loop, 1);
        wake(loop);
      });
    this.#deliveries.add(delivery);
  }

  /**
   * Where a task goes: a cron firing whose job names a routed target goes to
   * that target's base URL (App Engine sends a job to its target's service);
   * every other task to its queue's (its `<target-url>`, its `<target>`'s
   * route, else TASKQUEUE_PUSH_BASE_URL: withPushBaseUrl). Null: nowhere (a
   * queue with no base URL dispatched for its routed cron firings, holding
   * a task with no route: added by the SQL API, or by a process with other
   * routes).
   */
  #baseUrlOf(push: PushQueueSettings, request: PushRequest): string | null {
    const target = request.cron?.target;
    const routed =
      target === undefined || this.#options.targetUrls === undefined
        ? null
        : routeOfTarget(target, this.#options.targetUrls);
    return routed ?? push.baseUrl ?? push.targetUrl;
  }

  /** One attempt and its outcome; `signal` cuts the request (shutdown, or the end of this process's term). */
  async #deliver(loop: QueueLoop, task: ClaimedPushTask, slot: Slot, signal: AbortSignal): Promise<void> {
    const queue = loop.queue;
    const config = queue.config;
    const push = config.push ?? DEFAULT_PUSH_SETTINGS;
    const request: PushRequest = task.push ?? {
      url: `/_ah/queue/${config.name}`,
      method: 'POST',
      headers: [],
      retry: null,
      deadlineSeconds: null,
    };
    const base = this.#baseUrlOf(push, request);
    const url = base === null ? null : deliveryUrl(base, request.url);
    const ref = { queueId: queue.queueId, queueName: config.name, name: task.name, claimUsec: task.claimUsec };
    if (url === null) {
      // No base URL, or a path that climbs out of the base's (stored before
      // adds refused it, or by hand): no attempt could succeed.
      const target = request.cron?.target;
      const error =
        base !== null
          ? `url ${request.url.slice(0, 80)} climbs out of the path of the queue's target URL; not delivered`
          : `nowhere to deliver: push queue "${config.name}" has no <target-url> and no TASKQUEUE_PUSH_BASE_URL` +
            `${target === undefined ? '' : `, and target "${target}" has no route in TASKQUEUE_TARGET_URLS`}; not delivered`;
      const held = await this.#options.store.deadLetter({ ...ref, status: null, error, executed: false });
      this.#events.attempted(config.name, held ? 'dead_letter' : 'gone', 0);
      this.#logger.warn({ queue: config.name, task: task.name, error, deadLettered: true }, 'push task refused');
      return;
    }
    const hasBody = task.body.byteLength > 0;
    const authorization = this.#options.signer ? `Bearer ${await this.#options.signer(url.split('?')[0]!)}` : null;
    const started = Date.now();
    const result = await this.#options.transport.send({
      url,
      method: request.method,
      headers: pushHeaders(config.name, task, request, hasBody, authorization),
      body: hasBody ? task.body : null,
      deadlineMs: (request.deadlineSeconds ?? PUSH_LIMITS.defaultDeadlineSeconds) * 1000,
      signal,
    });
    // Cut: at shutdown the claim is released (retireDispatcher), at the end of a term recovered with its row; another process retries.
    if (signal.aborted && result.status === null) return;
    const seconds = (Date.now() - started) / 1000;
    const status = result.status;
    if (status !== null && status >= 200 && status < 300) {
      const tombstone = !(this.#options.heldByForm?.(task.name) ?? false);
      const held = await this.#delivered(loop, { ...ref, tombstone }, slot);
      this.#events.attempted(config.name, held ? 'success' : 'gone', seconds);
      return;
    }
    const error = status !== null ? `HTTP ${status}` : (result.error ?? 'no response');
    const retryAfter = result.retryAfterSeconds === null ? 0 : Math.min(result.retryAfterSeconds, MAX_RETRY_AFTER_S);
    if (status === 503) {
      await this.#options.store.throttle({
        queueId: queue.queueId,
        queueName: config.name,
        slowMs: SLOW_AFTER_503_MS,
        holdMs: retryAfter * 1000,
      });
    }
    const rules = request.retry ?? { retryLimit: config.maxLeases, parameters: config.retry };
    const ageSeconds = (task.claimedUsec - task.firstTryUsec) / 1e6 + seconds;
    const outcome = {
      ...ref,
      status,
      error,
      executed: status !== null && status !== 503,
      responseExcerpt: result.bodyExcerpt ?? null,
      durationMs: seconds * 1000,
    };
    const fields = { queue: config.name, task: task.name, status, error, attempt: task.attempt };
    if (mayRetry(task.attempt, ageSeconds, rules.retryLimit, rules.parameters)) {
      const delay = Math.max(
        retryBackoffSeconds(task.attempt, rules.parameters),
        status === 503 || status === 429 ? retryAfter : 0,
      );
      const held = await this.#options.store.failed({ ...outcome, delayMs: delay * 1000 });
      this.#events.attempted(config.name, held ? 'retry' : 'gone', seconds);
      this.#logger.warn({ ...fields, nextTryInSeconds: delay }, 'push attempt failed');
    } else {
      const held = await this.#options.store.deadLetter(outcome);
      this.#events.attempted(config.name, held ? 'dead_letter' : 'gone', seconds);
      this.#logger.warn(
        { ...fields, deadLettered: true },
        'push attempt failed; out of retries, moved to the dead letters',
      );
    }
  }
}
