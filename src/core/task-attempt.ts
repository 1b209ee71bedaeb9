/** A queue as the store knows it (task-store.ts's QueueRef, by shape: that file imports this one). */
interface QueueRef {
  readonly queueId: number;
  readonly queueName: string;
}

/**
 * Attempts kept per task (sql/0019): recording attempt n drops attempt
 * n - 10. Ten covers the default push retry limit's last stretch and a
 * worker's flapping, at a bounded cost: a failing task holds at most ten
 * rows of at most about 2 KiB each.
 */
export const ATTEMPTS_KEPT = 10;

/** Bytes of a failed push response's body kept with its attempt: enough to read an error page's message. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/**
 * How an attempt that did not succeed ended: `failed` (a push response other
 * than 2xx or none at all, or a worker's reported error), or `lapsed` (a
 * pull lease that ran out or was handed back, the task undeleted). A
 * success deletes its task, so it is never in the history.
 */
export type AttemptOutcome = 'failed' | 'lapsed';

/** One attempt of a task, as the history keeps it. */
export interface TaskAttempt {
  /** The lease number: 1 for the first lease or delivery. */
  readonly attempt: number;
  /** When it ended (a lapse: when the next lease noticed it), in microseconds (the database's clock). */
  readonly endedUsec: number;
  readonly outcome: AttemptOutcome;
  /** The push response's status; null without one. */
  readonly httpStatus: number | null;
  /** The transport's or worker's error, or `HTTP 502`. */
  readonly error: string | null;
  /** The start of a failed push response's body (RESPONSE_EXCERPT_BYTES), as text. */
  readonly responseExcerpt: string | null;
  /** How long the request took (push), in milliseconds. */
  readonly durationMs: number | null;
}

/** An attempt to record. */
export interface NewTaskAttempt {
  readonly name: string;
  readonly attempt: number;
  readonly outcome: AttemptOutcome;
  readonly httpStatus?: number | null;
  readonly error?: string | null;
  readonly responseExcerpt?: string | null;
  readonly durationMs?: number | null;
  /**
   * A lapse is noticed at the next lease, after any failure the worker
   * reported for the same lease: it never replaces that record, only a
   * row older than the task itself (`enqueuedUsec`: one of a redriven
   * task's earlier life). Absent: the record replaces any row.
   */
  readonly enqueuedUsec?: number;
}

export interface AttemptRecordParams extends QueueRef {
  readonly attempts: readonly NewTaskAttempt[];
}

export interface AttemptListParams extends QueueRef {
  readonly name: string;
}

/**
 * Which tasks a "run now" makes due: the named ones, or every task in a
 * state (and of a tag) as the queue page filters them.
 */
export type RunNowSelection =
  | { readonly names: readonly string[] }
  | {
      readonly filter: { readonly state?: 'leased' | 'delayed'; readonly tag?: string | null };
      /** Only count the tasks it would make due now (up to the cap): the count a confirmation shows. */
      readonly dryRun?: boolean;
    };

export interface RunNowParams extends QueueRef {
  readonly selection: RunNowSelection;
  /** Tasks per statement for a filter. */
  readonly batchSize: number;
  /** A filter stops after this many (tasks leased again while it runs would otherwise be made due again). */
  readonly maxTasks: number;
  /** Push queue: tasks in flight are left to their delivery. */
  readonly push: boolean;
}

/** What a run-now did: the names made due (a filter's first AUDIT_NAMES_KEPT only), and how many in all. */
export interface RunNowResult {
  readonly count: number;
  readonly names: readonly string[];
}
