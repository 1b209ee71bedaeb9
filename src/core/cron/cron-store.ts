import type { CallerTransaction } from '../caller-transaction.js';
import type { CronFiringRow } from './cron-history.js';
import type { CronJob } from './cron-job.js';

/**
 * A firing's outcome: its task was added (by this process, or already by
 * another), its task name was found taken by a task the cron service did
 * not add (skipped: the firing did not happen), or it could not be added.
 */
export type CronFiringOutcome = 'added' | 'already_added' | 'skipped' | 'failed';

/** A firing's outcome as the job's record keeps it. */
export type RecordedCronOutcome = 'added' | 'skipped' | 'failed';

/**
 * How the claim of a scheduled instant went: this process claimed it and
 * added its task; another process had claimed it (its firing was added, or
 * skipped and recorded); or the job has no row to claim it in.
 */
export type CronClaim = 'claimed' | 'taken' | 'unrecorded';

/** A job as the database reports it: its definition and its last firing. */
export interface CronJobRecord {
  /** The job as written when a server last started with it (enough to fire it from the database alone). */
  readonly job: CronJob;
  readonly name: string;
  readonly schedule: string;
  readonly timezone: string;
  readonly url: string;
  readonly queue: string;
  readonly description: string | null;
  /** The scheduled instant of the last scheduled firing (a `cron run` leaves it); null = none yet. */
  readonly lastInstant: Date | null;
  /** Where the job's instants are counted from until it first fires (the first server's start). */
  readonly anchoredAt: Date;
  /** When the last firing's task (scheduled or run) was added, on the database's clock. */
  readonly lastFiredAt: Date | null;
  readonly lastTask: string | null;
  readonly lastOutcome: RecordedCronOutcome | null;
  readonly lastError: string | null;
  /** When a server started whose cron file does not name the job (null = named by the last one that started with it). */
  readonly retiredAt: Date | null;
}

/**
 * How long a retired job's row is kept once no server runs it (sql/0017).
 * Servers started from an older file may still run the job (a rolling
 * deploy): its row keeps its chain of instants and its last firing, and
 * each server running it marks it seen at start and then hourly
 * (CRON_SEEN_INTERVAL_MS). A retired row unseen this long is deleted at a
 * server's start.
 */
export const RETIRED_CRON_JOB_DAYS = 7;

/** How often a running server marks its jobs seen: far inside the retirement period, and one small write an hour. */
export const CRON_SEEN_INTERVAL_MS = 60 * 60 * 1000;

/** What one firing did, as recorded. */
export interface CronFiringRecord {
  readonly job: string;
  readonly instant: Date;
  readonly task: string;
  readonly outcome: RecordedCronOutcome;
  readonly error: string | null;
  /** False for a `cron run`: it is shown as the last firing but leaves the scheduled instants' chain. */
  readonly scheduled: boolean;
}

/**
 * The cron scheduler's seam to the database (store/cron/pg-cron-store.ts). The
 * firings themselves are push tasks; this only keeps the clock and the
 * record of the jobs, so that every process and the operator's tools see
 * the same last firing.
 */
export interface CronStore {
  /** The database's clock: every process decides instants on it, never on its own. */
  now(): Promise<Date>;
  /**
   * Writes the jobs this process runs (each job's queue resolved), seen at
   * `now`. A job new to the database is anchored at `now`; jobs not in the
   * file are marked retired, and those retired and unseen for
   * RETIRED_CRON_JOB_DAYS are dropped.
   */
  syncJobs(jobs: readonly (CronJob & { readonly queue: string })[], now: Date): Promise<void>;
  /** Marks these jobs seen at `now`: a server still runs them, retired or not. */
  markSeen(names: readonly string[], now: Date): Promise<void>;
  /**
   * Claims the scheduled instant `firing.instant` of a job for this process
   * and, in the same transaction, adds its task: `add` gets the
   * transaction. Claiming records the firing as the job's last (`added`,
   * `firing.task`); another process claiming the same instant waits for
   * this one's commit and finds it taken, so each instant is added by one
   * process, and a task name found taken inside a claim was taken by
   * someone else (a pre-empted firing). An instant recorded `failed` may be
   * claimed again (the add may succeed elsewhere). If `add` throws, nothing
   * is claimed and the error propagates.
   */
  claimFiring(
    firing: { readonly job: string; readonly instant: Date; readonly task: string },
    add: (transaction: CallerTransaction) => Promise<void>,
  ): Promise<CronClaim>;
  /**
   * Records a firing as the job's last, unless a later instant is recorded
   * already, or this one was recorded `added` (by a claim).
   */
  recordFiring(firing: CronFiringRecord): Promise<void>;
  /** Every job recorded, by name. */
  listJobs(): Promise<CronJobRecord[]>;
  /**
   * The rows of a job's recent firings in its queue (cron-history.ts): its
   * tasks, dead letters and tombstones whose names start `cron-<job>-`,
   * newest names first, at most `limit` of each.
   */
  firingRows(params: {
    readonly job: string;
    readonly queue: string;
    readonly limit: number;
  }): Promise<CronFiringRow[]>;
}
