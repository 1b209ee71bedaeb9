import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../core/pool-stats.js';
import type { Logger } from '../core/logger.js';
import type { QueueOverview } from '../core/queue-overview.js';
import type { TaskEvents } from '../core/task-events.js';
import type { WorkerMetrics } from '../core/worker/worker-events.js';
import type { HttpObserver } from '../http/request-log.js';
import type { PushEvents } from '../core/push/dispatcher/push-transport.js';
import { createPushMetrics } from './push-metrics.js';
import { createCronMetrics } from './cron-metrics.js';
import type { CronEvents } from '../core/cron/cron-scheduler.js';

/** How long one reading of the queue gauges serves scrapes. */
const QUEUE_GAUGE_TTL_MS = 1000;

/** What the gauges read once the service is open. */
export interface MetricsSources {
  /** Every configured queue at a glance, from one query (TaskQueueService.overview). */
  overview(): Promise<QueueOverview[]>;
  /** The pool's figures now; null for the embedded engine (no pool). */
  pool(): PoolStats | null;
}

/**
 * The server's Prometheus metrics, on a registry of its own (so two servers
 * in one process, as in tests, do not share counters):
 *
 * - HTTP: `taskqueue_http_requests_total{route,method,status}` and
 *   `taskqueue_http_request_duration_seconds{route,method}`, by route
 *   template (bounded cardinality: never the raw path).
 * - Tasks, counted by this process through the core's TaskEvents seam:
 *   `taskqueue_tasks_{added,leased,deleted,expired,dead_lettered}_total{queue}`.
 * - Queues, read from the database (so the same in every process):
 *   `taskqueue_queue_tasks{queue,state}` (available, leased, delayed),
 *   `taskqueue_queue_oldest_task_age_seconds{queue}`,
 *   `taskqueue_queue_dead_letters{queue}`, `taskqueue_queue_paused{queue}`.
 *   One query per scrape at most, its result kept for a second, and
 *   concurrent scrapes share one query: a scrape storm cannot load the database.
 * - The pool: `taskqueue_db_pool_connections{state}` (idle, in_use),
 *   `taskqueue_db_pool_waiting`, `taskqueue_db_pool_max`.
 * - Node's default process metrics (`process_*`, `nodejs_*`).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly events: TaskEvents;
  readonly http: HttpObserver;
  /** Push delivery of this process (push-metrics.ts). */
  readonly push: PushEvents;
  /** Cron firings this process tried (the scheduler tells them). */
  readonly cron: CronEvents;
  #sources: MetricsSources | null = null;
  #queues: { at: number; rows: Promise<QueueOverview[]> } | null = null;
  readonly #logger: Logger;
  readonly #taskCounters: readonly Counter<'queue'>[];

  constructor(logger: Logger) {
    this.#logger = logger;
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });

    const requests = new Counter({
      name: 'taskqueue_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      registers,
    });
    const durations = new Histogram({
      name: 'taskqueue_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route template (long-poll leases include their wait).',
      labelNames: ['route', 'method'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.http = {
      request(route, method, status, seconds) {
        requests.inc({ route, method, status: String(status) });
        durations.observe({ route, method }, seconds);
      },
    };

    const counter = (name: string, help: string) =>
      new Counter({ name, help, labelNames: ['queue'] as const, registers });
    const added = counter(
      'taskqueue_tasks_added_total',
      'Tasks added by this process (including redriven dead letters).',
    );
    const leased = counter('taskqueue_tasks_leased_total', 'Tasks leased by this process.');
    const deleted = counter('taskqueue_tasks_deleted_total', 'Tasks deleted by this process (including purges).');
    const expired = counter(
      'taskqueue_tasks_expired_total',
      'Leases that lapsed: tasks leased again (or dead-lettered) by this process after an earlier lease ran out undeleted.',
    );
    const deadLettered = counter(
      'taskqueue_tasks_dead_lettered_total',
      'Tasks this process moved to the dead letters at the retry limit.',
    );
    this.#taskCounters = [added, leased, deleted, expired, deadLettered];
    this.push = createPushMetrics(this.registry);
    this.cron = createCronMetrics(this.registry);
    this.events = {
      added: (queue, n) => added.inc({ queue }, n),
      leased: (queue, n) => leased.inc({ queue }, n),
      deleted: (queue, n) => deleted.inc({ queue }, n),
      expired: (queue, n) => expired.inc({ queue }, n),
      deadLettered: (queue, n) => deadLettered.inc({ queue }, n),
      worker: workerMetrics(registers),
    };

    const scrapeErrors = new Counter({
      name: 'taskqueue_queue_stats_errors_total',
      help: 'Scrapes whose queue gauges could not be read from the database (the gauges are then absent).',
      registers,
    });
    // prom-client collects every metric concurrently: each queue gauge
    // fills itself from the same reading (one query, shared and cached).
    let failedReading: Promise<QueueOverview[]> | null = null;
    const rows = async (): Promise<QueueOverview[]> => {
      const reading = this.#queueRows();
      try {
        return await reading;
      } catch (error) {
        // Counted and logged once per failed reading, not once per gauge.
        if (failedReading !== reading) {
          failedReading = reading;
          scrapeErrors.inc();
          this.#logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            'metrics: could not read the queue gauges',
          );
        }
        return [];
      }
    };
    const queueGauge = <L extends string>(
      name: string,
      help: string,
      labelNames: readonly L[],
      fill: (gauge: Gauge<L>, row: QueueOverview) => void,
    ): Gauge<L> =>
      new Gauge<L>({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          const current = await rows();
          this.reset();
          for (const row of current) fill(this, row);
        },
      });
    queueGauge(
      'taskqueue_queue_tasks',
      'Tasks in a queue by state: available (leasable now), leased (lease running), delayed (ETA ahead). From the database.',
      ['queue', 'state'],
      (gauge, row) => {
        gauge.set({ queue: row.name, state: 'available' }, row.availableTasks);
        gauge.set({ queue: row.name, state: 'leased' }, row.leasedTasks);
        gauge.set({ queue: row.name, state: 'delayed' }, row.delayedTasks);
      },
    );
    queueGauge(
      'taskqueue_queue_oldest_task_age_seconds',
      'Seconds the longest-waiting available task of a queue has been leasable (0 when none is). From the database.',
      ['queue'],
      (gauge, row) => gauge.set({ queue: row.name }, row.oldestAvailableAgeSeconds ?? 0),
    );
    queueGauge(
      'taskqueue_queue_dead_letters',
      'Dead letters held for a queue. From the database.',
      ['queue'],
      (gauge, row) => gauge.set({ queue: row.name }, row.deadLetters),
    );
    queueGauge('taskqueue_queue_paused', '1 when a queue is paused. From the database.', ['queue'], (gauge, row) =>
      gauge.set({ queue: row.name }, row.paused ? 1 : 0),
    );
    queueGauge(
      'taskqueue_push_queue_in_flight',
      'Push requests in flight for a queue, across every process. From the database.',
      ['queue'],
      (gauge, row) => {
        if (row.push) gauge.set({ queue: row.name }, row.push.inFlight);
      },
    );
    queueGauge(
      'taskqueue_push_queue_tokens',
      "Tokens in a push queue's bucket now (refilled since its last claim). From the database.",
      ['queue'],
      (gauge, row) => {
        if (row.push?.tokens !== undefined && row.push.tokens !== null) gauge.set({ queue: row.name }, row.push.tokens);
      },
    );

    const poolConnections = new Gauge({
      name: 'taskqueue_db_pool_connections',
      help: 'Connections of the PostgreSQL pool, by state (idle, in_use).',
      labelNames: ['state'] as const,
      registers,
      collect: () => {
        const stats = this.#sources?.pool();
        if (!stats) return;
        poolConnections.set({ state: 'idle' }, stats.idle);
        poolConnections.set({ state: 'in_use' }, stats.total - stats.idle);
      },
    });
    const poolWaiting = new Gauge({
      name: 'taskqueue_db_pool_waiting',
      help: 'Queries waiting for a pool connection.',
      registers,
      collect: () => {
        const stats = this.#sources?.pool();
        if (stats) poolWaiting.set(stats.waiting);
      },
    });
    const poolMax = new Gauge({
      name: 'taskqueue_db_pool_max',
      help: 'Most connections the pool opens (TASKQUEUE_POOL_SIZE).',
      registers,
      collect: () => {
        const stats = this.#sources?.pool();
        if (stats) poolMax.set(stats.max);
      },
    });
  }

  /** Connects the gauges to the open service, and starts every configured queue's counters at 0 (so rates work from the first scrape). */
  attach(sources: MetricsSources, queueNames: readonly string[]): void {
    this.#sources = sources;
    for (const counter of this.#taskCounters) for (const queue of queueNames) counter.inc({ queue }, 0);
  }

  /** The exposition, for GET /metrics. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** The overview, read at most once a second; scrapes meanwhile share the reading (or the query in flight). */
  #queueRows(): Promise<QueueOverview[]> {
    const sources = this.#sources;
    if (!sources) return Promise.resolve([]);
    const now = Date.now();
    if (this.#queues && now - this.#queues.at < QUEUE_GAUGE_TTL_MS) return this.#queues.rows;
    const rows = sources.overview();
    this.#queues = { at: now, rows };
    // A failed reading is not kept: the next scrape tries again.
    rows.catch(() => {
      if (this.#queues?.rows === rows) this.#queues = null;
    });
    return rows;
  }
}

/**
 * The worker runner's metrics (`queue.work`): tasks processed and failed,
 * leases lost and renewed, per queue, and how long handlers ran.
 */
function workerMetrics(registers: Registry[]): WorkerMetrics {
  const counter = (name: string, help: string) =>
    new Counter({ name, help, labelNames: ['queue'] as const, registers });
  const processed = counter(
    'taskqueue_worker_tasks_processed_total',
    'Tasks whose handler succeeded and that the worker deleted.',
  );
  const failed = counter(
    'taskqueue_worker_tasks_failed_total',
    'Tasks whose handler failed (handed back with the backoff delay).',
  );
  const lost = counter(
    'taskqueue_worker_leases_lost_total',
    'Leases a worker lost while it held the task (its success deleted nothing).',
  );
  const renewed = counter('taskqueue_worker_leases_renewed_total', 'Leases a worker extended while its handler ran.');
  const duration = new Histogram({
    name: 'taskqueue_worker_handler_duration_seconds',
    help: 'How long worker handlers ran, by queue and outcome.',
    labelNames: ['queue', 'outcome'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
    registers,
  });
  return {
    processed(queue, seconds) {
      processed.inc({ queue });
      duration.observe({ queue, outcome: 'processed' }, seconds);
    },
    failed(queue, seconds) {
      failed.inc({ queue });
      duration.observe({ queue, outcome: 'failed' }, seconds);
    },
    leaseLost: (queue) => lost.inc({ queue }),
    renewed: (queue) => renewed.inc({ queue }),
  };
}
