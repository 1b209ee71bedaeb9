/**
 * What became of a job's recent firings: each firing is a push task named
 * after the job and its instant (cron-job.ts), so its outcome is where
 * that name is now: still a task (waiting, or retrying after failed
 * deliveries), a dead letter (every delivery failed), or a tombstone
 * (delivered; or dropped by the retry limit). Read from those tables by the
 * name's prefix, so the history is as long as the tombstone and
 * dead-letter retention periods, and bounded by CRON_HISTORY_MAX per job.
 */

/** Most firings a job's history lists. */
export const CRON_HISTORY_MAX = 50;

/** Where one firing's task stands. */
export type CronFiringOutcome =
  /** Its task waits for its first delivery. */
  | 'pending'
  /** Delivery failed and will be tried again. */
  | 'retrying'
  /** Delivered (the endpoint answered 2xx): the task is gone, its name held by a tombstone. */
  | 'delivered'
  /** Every delivery failed: a dead letter (or, once that expired, the retry limit's tombstone). */
  | 'failed';

/** A firing's task as the store found it (cron-store.ts `firingRows`). */
export interface CronFiringRow {
  readonly task: string;
  readonly where: 'task' | 'dead_letter' | 'tombstone';
  /** Delivery attempts so far (the task's retry count). */
  readonly attempts: number;
  readonly lastError: string | null;
  /** The HTTP status of the last delivery, when the row keeps it. */
  readonly lastStatus: number | null;
  /** For a tombstone, why the task went. */
  readonly reason: string | null;
  /** When the row says the firing last changed: the task's ETA, the letter's death, the tombstone's delete. */
  readonly at: Date;
}

/** One firing in a job's history. */
export interface CronFiringEntry {
  readonly task: string;
  /** The scheduled instant, or for an operator's run the moment it was asked. */
  readonly instant: Date;
  /** An operator's `run now`, not the schedule. */
  readonly run: boolean;
  readonly outcome: CronFiringOutcome;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly lastStatus: number | null;
  /** When the outcome was reached (delivered, failed), or when the next delivery is due (pending, retrying). */
  readonly at: Date;
}

/** The instant in a firing's task name, and whether it was a run: null for a name of another job. */
export function firingInstantOf(job: string, task: string): { readonly instant: Date; readonly run: boolean } | null {
  const prefix = `cron-${job}-`;
  if (!task.startsWith(prefix)) return null;
  const match = /^(run-)?(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})?Z$/.exec(task.slice(prefix.length));
  if (!match) return null;
  const [, run, y, mo, d, h, mi, s, ms] = match;
  const instant = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms ?? '000'}Z`);
  return Number.isNaN(instant.getTime()) ? null : { instant, run: run !== undefined };
}

/** A found row as a history entry, or null when the name is another job's (a longer job name sharing the prefix). */
export function firingEntryOf(job: string, row: CronFiringRow): CronFiringEntry | null {
  const named = firingInstantOf(job, row.task);
  if (named === null) return null;
  const outcome: CronFiringOutcome =
    row.where === 'dead_letter' || (row.where === 'tombstone' && row.reason === 'retry_limit')
      ? 'failed'
      : row.where === 'tombstone'
        ? 'delivered'
        : row.attempts > 0 || row.lastError !== null
          ? 'retrying'
          : 'pending';
  return {
    task: row.task,
    ...named,
    outcome,
    attempts: row.attempts,
    lastError: row.lastError,
    lastStatus: row.lastStatus,
    at: row.at,
  };
}

/** Newest firing first, at most `limit`, a name found in two tables counted once (the live or dead row wins). */
export function cronHistoryOf(job: string, rows: readonly CronFiringRow[], limit: number): CronFiringEntry[] {
  const byTask = new Map<string, CronFiringEntry>();
  for (const row of rows) {
    const entry = firingEntryOf(job, row);
    if (entry === null) continue;
    const seen = byTask.get(entry.task);
    if (seen === undefined || row.where !== 'tombstone') byTask.set(entry.task, entry);
  }
  return [...byTask.values()].sort((a, b) => b.instant.getTime() - a.instant.getTime()).slice(0, limit);
}

/** A job fails when its latest firings that ended all failed, or the latest still retrying has: what the console styles. */
export function isFailing(history: readonly CronFiringEntry[]): boolean {
  const latest = history.find((entry) => entry.outcome !== 'pending');
  return latest !== undefined && (latest.outcome === 'failed' || latest.outcome === 'retrying');
}
