import { abortableSleep } from '../abortable-sleep.js';
import type { CallerTransaction } from '../caller-transaction.js';
import { cronFiringTask } from './cron-firing.js';
import { cronRunTaskName, cronTaskName, type CronJob } from './cron-job.js';
import { CRON_SEEN_INTERVAL_MS, type CronFiringOutcome, type CronStore } from './cron-store.js';
import { isQueueError, QueueError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Task, TaskOptions } from '../task.js';

/** A job with the queue its firings go through and its schedule: the first firing strictly after an instant. */
export interface ScheduledCronJob {
  readonly job: CronJob;
  readonly queue: string;
  next(after: Date): Date;
}

/** Told of every firing this process tries (metrics). */
export interface CronEvents {
  fired(job: string, outcome: CronFiringOutcome): void;
}

/** The scheduler's time: the database's clock, and a wait (tests give their own of both). */
export interface CronClock {
  now(): Promise<Date>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export interface CronSchedulerOptions {
  readonly jobs: readonly ScheduledCronJob[];
  readonly store: CronStore;
  /** Adds a task to a queue (the service's `getQueue(queue).add`), inside `transaction` when given (a claim's). */
  add(queue: string, task: TaskOptions, transaction?: CallerTransaction): Promise<Task>;
  readonly logger: Logger;
  readonly events?: CronEvents;
  /** Default: the store's now() (PostgreSQL's) and setTimeout. */
  readonly clock?: CronClock;
}

/** The result of one firing. */
export interface CronFiring {
  readonly job: string;
  /** The queue the firing's task went to. */
  readonly queue: string;
  readonly instant: Date;
  readonly task: string;
  readonly outcome: CronFiringOutcome;
  /** Why the firing failed or was skipped; null when its task was added. */
  readonly error: string | null;
}

/**
 * Longest single wait. The wait is measured on Node's timer but the instant
 * on the database's clock: waking at least once a minute re-reads the
 * database's time, so a drift between the two never delays a firing by
 * more than this.
 */
const MAX_WAIT_MS = 60_000;
/** Most missed firings counted per job at start (a seconds-level schedule down for a year would count forever). */
const MAX_MISSED_COUNT = 100_000;
/** Wait after the loop itself failed (the database is away), before reading the clock again. */
const RETRY_WAIT_MS = 5_000;

/**
 * Fires cron jobs: at each scheduled instant of each job, one push task
 * named after the job and the instant (cronTaskName). Any number of
 * processes run one of these over one database; the name makes the firing
 * one task, since an add of a name that is live, or tombstoned after its
 * delivery, fails with TASK_ALREADY_EXISTS or TOMBSTONED_TASK for every
 * process but the first. Instants are decided on the database's clock.
 *
 * A firing missed while no process ran is not fired late (as on App
 * Engine): `start` counts and logs them, and each job fires at its first
 * instant after the start.
 */
export class CronScheduler {
  readonly #options: CronSchedulerOptions;
  readonly #clock: CronClock;
  readonly #stop = new AbortController();
  #loop: Promise<void> | null = null;

  constructor(options: CronSchedulerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? { now: () => options.store.now(), sleep: abortableSleep };
  }

  /** Starts the loop (after recording the jobs and logging the firings missed while none ran). */
  start(): void {
    this.#loop ??= this.#run().catch((error: unknown) => {
      if (!this.#stop.signal.aborted) this.#options.logger.error({ err: error }, 'cron scheduler stopped');
    });
  }

  /** Stops the loop; a firing being added finishes first. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
  }

  /** Fires `name` now, once, outside its schedule (`taskqueue cron run`). */
  async runNow(name: string): Promise<CronFiring> {
    const scheduled = this.#options.jobs.find((candidate) => candidate.job.name === name);
    if (scheduled === undefined)
      throw new QueueError('UNKNOWN_TASK', `no cron job named "${name}"`, { field: 'job', job: name });
    const now = await this.#clock.now();
    return this.#fire(scheduled, now, cronRunTaskName(name, now), false);
  }

  async #run(): Promise<void> {
    const { jobs, store, logger } = this.#options;
    const signal = this.#stop.signal;
    let pending: Map<ScheduledCronJob, Date>;
    let seenAt: number;
    for (;;) {
      try {
        const now = await this.#clock.now();
        // Also with no jobs (an empty cron file): the jobs recorded before are retired.
        await store.syncJobs(
          jobs.map(({ job, queue }) => ({ ...job, queue })),
          now,
        );
        if (jobs.length === 0) return;
        pending = await this.#firstInstants(now);
        seenAt = now.getTime();
        break;
      } catch (error) {
        logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'cron: could not start; trying again',
        );
        await this.#clock.sleep(RETRY_WAIT_MS, signal);
        if (signal.aborted) return;
      }
    }
    logger.info({ jobs: jobs.length }, 'cron jobs scheduled');
    while (!signal.aborted) {
      let now: Date;
      try {
        now = await this.#clock.now();
      } catch (error) {
        logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'cron: could not read the database clock',
        );
        await this.#clock.sleep(RETRY_WAIT_MS, signal);
        continue;
      }
      if (now.getTime() - seenAt >= CRON_SEEN_INTERVAL_MS) {
        // Still running these jobs: their rows stay, even retired by a server with another file.
        seenAt = now.getTime();
        await store
          .markSeen(
            jobs.map(({ job }) => job.name),
            now,
          )
          .catch((error: unknown) => {
            logger.warn(
              { err: error instanceof Error ? error.message : String(error) },
              'cron: could not mark the jobs seen',
            );
          });
      }
      const due = [...pending].filter(([, instant]) => instant.getTime() <= now.getTime());
      if (due.length > 0) {
        await Promise.all(
          due.map(([scheduled, instant]) =>
            this.#fire(scheduled, instant, cronTaskName(scheduled.job.name, instant), true),
          ),
        );
        for (const [scheduled, instant] of due) {
          const { next, passed } = firstAfter(scheduled, instant, now);
          if (passed > 0)
            logger.warn({ job: scheduled.job.name, skipped: passed }, 'cron: firings skipped (this process was late)');
          pending.set(scheduled, next);
        }
        continue;
      }
      const soonest = Math.min(...[...pending.values()].map((instant) => instant.getTime()));
      await this.#clock.sleep(Math.min(MAX_WAIT_MS, soonest - now.getTime()), signal);
    }
  }

  /**
   * Each job's first instant after `now`, on its chain of instants: from its
   * last scheduled firing, else from its anchor (both in the database), so
   * every process agrees on the instants even of a schedule counted from
   * the previous firing ("every 2 hours"). Logs the firings missed since
   * the last one: nobody fired them, and nobody will.
   */
  async #firstInstants(now: Date): Promise<Map<ScheduledCronJob, Date>> {
    const records = new Map((await this.#options.store.listJobs()).map((record) => [record.name, record]));
    const pending = new Map<ScheduledCronJob, Date>();
    for (const scheduled of this.#options.jobs) {
      const record = records.get(scheduled.job.name);
      const last = record?.lastInstant ?? null;
      const { next, passed } = firstAfter(scheduled, last ?? record?.anchoredAt ?? now, now);
      pending.set(scheduled, next);
      if (last !== null && passed > 0) {
        this.#options.logger.warn(
          { job: scheduled.job.name, missed: passed, lastFiring: last.toISOString() },
          'cron: firings missed while no process ran are not replayed',
        );
      }
    }
    return pending;
  }

  /**
   * One firing. A scheduled instant is claimed in the database and its task
   * added in the claim's transaction (CronStore.claimFiring), so one process
   * adds it and the others find it taken. The task's name then can be taken
   * only by a task the cron service did not add (one added before names of
   * this form were reserved, or written into the table directly): the
   * firing is skipped, and says so (logged, counted, recorded), instead of
   * passing for a firing another process added.
   */
  async #fire(scheduled: ScheduledCronJob, instant: Date, task: string, isScheduled: boolean): Promise<CronFiring> {
    const { store, logger, events } = this.#options;
    const job = scheduled.job.name;
    const options = cronFiringTask(scheduled.job, instant, task);
    // Whether the add ran inside a claim: a name taken there was not taken by a process of ours.
    let claimed = false;
    const add = async (transaction?: CallerTransaction) => {
      claimed = transaction !== undefined;
      await this.#options.add(scheduled.queue, options, transaction);
    };
    let outcome: CronFiringOutcome;
    let error: string | null = null;
    let recorded = false;
    try {
      const claim = isScheduled ? await store.claimFiring({ job, instant, task }, add) : 'unrecorded';
      if (claim === 'unrecorded') await add();
      // A claimed firing was recorded with its claim.
      recorded = claim === 'claimed';
      outcome = claim === 'taken' ? 'already_added' : 'added';
    } catch (caught) {
      const message = caught instanceof Error ? caught.message : String(caught);
      const taken = isQueueError(caught, 'TASK_ALREADY_EXISTS') || isQueueError(caught, 'TOMBSTONED_TASK');
      if (taken && isScheduled && !claimed) {
        // No row to claim in (never synced, or deleted by hand): as before claims, the name is all there is.
        outcome = 'already_added';
      } else if (taken) {
        // Inside a claim (or for a run, whose name has the milliseconds) no process of ours added this name: someone else did.
        outcome = 'skipped';
        error = `task name ${task} was taken by a task the cron service did not add (${message}); this firing did not happen`;
        logger.error(
          { job, task, queue: scheduled.queue, err: message },
          'cron: firing skipped: its task name was taken',
        );
      } else {
        outcome = 'failed';
        // Said where the operator sees it (cron run, cron list): which queue, and who defines it.
        error = isQueueError(caught, 'UNKNOWN_QUEUE')
          ? `${message} (job "${job}" fires through queue "${scheduled.queue}", which is not active in the database: ` +
            "servers define their queue file's queues, and the built-in cron queue when they start with a cron file)"
          : message;
        logger.error({ job, task, queue: scheduled.queue, err: error }, 'cron: firing failed');
      }
    }
    events?.fired(job, outcome);
    if (outcome !== 'already_added' && !recorded) {
      try {
        await store.recordFiring({ job, instant, task, outcome, error, scheduled: isScheduled });
      } catch (caught) {
        logger.warn(
          { job, task, err: caught instanceof Error ? caught.message : String(caught) },
          'cron: could not record the firing',
        );
      }
    }
    if (outcome === 'added')
      logger.info({ job, task, queue: scheduled.queue, instant: instant.toISOString() }, 'cron job fired');
    return { job, queue: scheduled.queue, instant, task, outcome, error };
  }
}

/**
 * The first instant of a job's chain after `now`, stepping from `from` (an
 * instant of the chain), and how many instants it passed on the way (each
 * after `from` and at or before `now`). Past MAX_MISSED_COUNT steps it
 * restarts the chain at `now`.
 */
export function firstAfter(
  scheduled: Pick<ScheduledCronJob, 'next'>,
  from: Date,
  now: Date,
): { next: Date; passed: number } {
  let passed = 0;
  let at = scheduled.next(from);
  while (at.getTime() <= now.getTime()) {
    passed++;
    if (passed >= MAX_MISSED_COUNT) return { next: scheduled.next(now), passed };
    at = scheduled.next(at);
  }
  return { next: at, passed };
}
