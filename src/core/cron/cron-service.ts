import type { CallerTransaction } from '../caller-transaction.js';
import { cronHistoryOf, type CronFiringEntry } from './cron-history.js';
import type { CronJobRecord, CronStore } from './cron-store.js';
import {
  CronScheduler,
  firstAfter,
  type CronClock,
  type CronEvents,
  type CronFiring,
  type ScheduledCronJob,
} from './cron-scheduler.js';
import { QueueError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Task, TaskOptions } from '../task.js';

/** A job for `cron list` and the console: as recorded, with its next firings. */
export interface CronJobStatus extends CronJobRecord {
  /** The next three firings after now (database clock); empty if the schedule no longer compiles. */
  readonly next: readonly Date[];
}

export interface CronServiceOptions {
  /** The jobs of this process's cron file; null without one (an operator's tool): nothing is recorded. */
  readonly jobs: readonly ScheduledCronJob[] | null;
  readonly store: CronStore;
  /** Adds a firing's task, inside `transaction` when given (CronSchedulerOptions.add). */
  add(queue: string, task: TaskOptions, transaction?: CallerTransaction): Promise<Task>;
  /** A job's schedule from the database (it may come from another process's file): its first firing after an instant. */
  scheduleOf(job: CronJobRecord): ((after: Date) => Date) | null;
  readonly logger: Logger;
  readonly events?: CronEvents;
  readonly clock?: CronClock;
}

/** How many next firings `cron list` and the console show. */
const NEXT_SHOWN = 3;

/**
 * The cron jobs of a service: the scheduler that fires this process's
 * jobs, and what operators ask of every job the servers recorded (list,
 * run now).
 */
export class CronService {
  readonly #options: CronServiceOptions;
  readonly #scheduler: CronScheduler;
  #running = false;

  constructor(options: CronServiceOptions) {
    this.#options = options;
    this.#scheduler = this.#schedulerOf(options.jobs ?? []);
  }

  /** Starts firing this process's jobs (with an empty file, only records that it has none). */
  start(): void {
    if (this.#running || this.#options.jobs === null) return;
    this.#running = true;
    this.#scheduler.start();
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#scheduler.stop();
  }

  /** Every job the servers recorded, with its last firing and its next three. */
  async list(): Promise<CronJobStatus[]> {
    const [records, now] = await Promise.all([
      this.#options.store.listJobs(),
      this.#options.clock?.now() ?? this.#options.store.now(),
    ]);
    return records.map((record) => {
      const next = this.#options.scheduleOf(record);
      const firings: Date[] = [];
      // On the job's chain of instants, as the scheduler counts them (from the last firing, else the anchor).
      if (next !== null) {
        let at = firstAfter({ next }, record.lastInstant ?? record.anchoredAt, now).next;
        for (; firings.length < NEXT_SHOWN; at = next(at)) firings.push(at);
      }
      return { ...record, next: firings };
    });
  }

  /**
   * A recorded job's latest firings (at most `limit`), newest first, each
   * with where its task stands (cron-history.ts). UNKNOWN_TASK names no job.
   */
  async history(name: string, limit: number): Promise<CronFiringEntry[]> {
    const record = (await this.#options.store.listJobs()).find((candidate) => candidate.name === name);
    if (record === undefined) {
      throw new QueueError('UNKNOWN_TASK', `no cron job named "${name}"`, { field: 'job' });
    }
    const rows = await this.#options.store.firingRows({ job: name, queue: record.queue, limit });
    return cronHistoryOf(name, rows, limit);
  }

  /**
   * Fires a job now, once: one of this process's, else one the servers
   * recorded. UNKNOWN_TASK names neither. Its audit entry is the operator
   * API's (QueueOperations.recordCronRun, through TaskQueueService.runCronJob).
   */
  run(name: string): Promise<CronFiring> {
    return this.#fire(name);
  }

  async #fire(name: string): Promise<CronFiring> {
    if ((this.#options.jobs ?? []).some((scheduled) => scheduled.job.name === name))
      return this.#scheduler.runNow(name);
    const record = (await this.#options.store.listJobs()).find((candidate) => candidate.name === name);
    if (record === undefined) {
      throw new QueueError(
        'UNKNOWN_TASK',
        `no cron job named "${name}" (the jobs are recorded when a server starts with the cron file)`,
        { field: 'job' },
      );
    }
    const next = this.#options.scheduleOf(record) ?? ((after: Date) => after);
    return this.#schedulerOf([{ job: record.job, queue: record.queue, next }]).runNow(name);
  }

  #schedulerOf(jobs: readonly ScheduledCronJob[]): CronScheduler {
    const { store, add, logger, events, clock } = this.#options;
    return new CronScheduler({ jobs, store, add, logger, ...(events ? { events } : {}), ...(clock ? { clock } : {}) });
  }
}
