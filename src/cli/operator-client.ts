import type { CronFiringEntry } from '../core/cron/cron-history.js';
import type { RunNowSelection, TaskAttempt } from '../core/task-attempt.js';
import type { CronFiring } from '../core/cron/cron-scheduler.js';
import type { CronJobStatus } from '../core/cron/cron-service.js';
import type { DeadLetterRecord } from '../core/dead-letter.js';
import type { QueueOverview } from '../core/queue-overview.js';
import type { ExportLine } from '../core/task-export.js';
import type { TaskSearch } from '../core/task-search.js';
import type { TaskHandler } from '../core/worker/task-worker.js';
import type { WorkerOptions } from '../core/worker/worker-options.js';

export type { ExportLine } from '../core/task-export.js';

/** A task as the CLI prints it (one JSON line each): times in microseconds since the epoch. */
export interface TaskRecord {
  readonly name: string;
  readonly queue: string;
  readonly tag: string | null;
  readonly retryCount: number;
  /** When it becomes leasable; while leased, the lease expiry (the lease token). */
  readonly etaUsec: number;
  readonly enqueuedUsec: number;
  /** The last failure a worker reported, or null. */
  readonly lastError: string | null;
  readonly payloadBase64: string;
}

/** A task as `taskqueue get` prints it: a push task adds its request (secret header values masked, as REST shows them). */
export interface TaskDetail extends TaskRecord {
  readonly push?: {
    readonly url: string;
    readonly method: string;
    readonly headers: readonly (readonly [string, string])[];
    /** null: the default deadline (10 minutes). */
    readonly dispatchDeadlineSeconds: number | null;
  };
}

/** A dead letter as the CLI prints it (the admin routes' shape). */
export type { DeadLetterRecord } from '../core/dead-letter.js';

/** What `taskqueue add` asks for. */
export interface NewTaskRecord {
  readonly payload: Buffer;
  readonly name?: string;
  readonly tag?: string;
  readonly countdownSeconds?: number;
  /** Push queues: path the task is delivered to, its HTTP method and headers. */
  readonly url?: string;
  readonly method?: string;
  readonly headers?: readonly (readonly [string, string])[];
}

export interface LeaseRequest {
  readonly numTasks: number;
  readonly leaseSecs: number;
  readonly tag?: string;
}

/** One request of `taskqueue search`: the tasks found and where the search goes on (core/task-search.ts). */
export interface SearchResult {
  readonly tasks: TaskRecord[];
  /** The cursor of the next request; null when nothing remains. */
  readonly next: string | null;
  /** Candidates read. */
  readonly scanned: number;
  /** The request stopped at its scan limit, not on a full page. */
  readonly bounded: boolean;
}

/** A cron job as `cron list` shows it: its record and next firings, without the stored definition. */
export type CronJobView = Omit<CronJobStatus, 'job'>;

/** Tasks per import call (the most one add takes, all or nothing). */
export const IMPORT_BATCH = 100;

/** Bytes of JSON lines per import call at most (a server takes 32 MiB per import request). */
export const IMPORT_BATCH_BYTES = 16 * 1024 * 1024;

/**
 * What the operator commands do, the same way against the database
 * (DatabaseClient) and against a running server (HttpClient, --url).
 */
export interface OperatorClient {
  /** Where the commands go, for messages: "PostgreSQL", "http://...". */
  readonly target: string;
  queues(): Promise<QueueOverview[]>;
  stats(queue: string): Promise<QueueOverview>;
  /** One live task; UNKNOWN_TASK (or a 404) when there is none. */
  get(queue: string, name: string): Promise<TaskDetail>;
  add(queue: string, task: NewTaskRecord): Promise<TaskRecord>;
  lease(queue: string, request: LeaseRequest): Promise<TaskRecord[]>;
  /** True for each name deleted, false for a name that was not a live task. */
  delete(queue: string, names: readonly string[]): Promise<boolean[]>;
  purge(queue: string): Promise<number>;
  setPaused(queue: string, paused: boolean): Promise<void>;
  /** Dead letters, oldest death first, a page at a time. */
  deadLetters(queue: string): AsyncIterable<DeadLetterRecord[]>;
  /** Puts the named dead letters (all of the queue's without names) back; resolves to how many went back. */
  redrive(queue: string, names?: readonly string[]): Promise<number>;
  /** Makes the named tasks, or all matching a filter, due now (audited as `run_now`); resolves to how many (a dry run: would be). */
  runNow(queue: string, selection: RunNowSelection): Promise<number>;
  /** A task's or dead letter's last attempts that did not succeed, newest first. */
  attempts(queue: string, name: string): Promise<TaskAttempt[]>;
  /** One bounded request of a search of the queue's live tasks (`taskqueue search`). */
  search(queue: string, search: TaskSearch): Promise<SearchResult>;
  /** The queue's live tasks in ETA order, a page at a time. */
  exportTasks(queue: string): AsyncIterable<ExportLine[]>;
  /** Adds up to IMPORT_BATCH exported tasks, all or nothing. */
  importTasks(queue: string, lines: readonly ExportLine[]): Promise<number>;
  /** The cron jobs the servers recorded (`taskqueue cron list`). */
  cronJobs(): Promise<CronJobView[]>;
  /** Fires a recorded cron job now, once (`taskqueue cron run`): audited as the operator. */
  runCronJob(name: string): Promise<CronFiring>;
  /** A job's latest firings with their outcomes (`taskqueue cron history`). */
  cronHistory(name: string, limit: number): Promise<CronFiringEntry[]>;
  /** Runs a worker on the queue (`taskqueue work`): in this process on the database, or over REST. */
  work(queue: string, handler: TaskHandler<WorkTask>, options: WorkerOptions): RunningWorker;
  close(): Promise<void>;
}

/** What `taskqueue work` hands its command: the part of a task both ways of working share. */
export interface WorkTask {
  readonly name: string;
  readonly payload: Buffer;
  readonly tag: string | null;
  readonly retryCount: number;
}

/** A worker `taskqueue work` runs. */
export interface RunningWorker {
  stop(): Promise<void>;
  on(event: 'failed', listener: (task: WorkTask, error: unknown) => void): unknown;
}
