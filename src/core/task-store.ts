import type { AuditIntent, NewAuditEntry } from './audit-log.js';
import type { CallerTransaction } from './caller-transaction.js';
import type { DeadLetter, DeadLetterRef } from './dead-letter.js';
import type { ServiceConfig } from './queue-config.js';
import type { LeaseRate } from './queue-config.js';
import type { QueueAttention } from './queue-attention.js';
import type { QueueOverview } from './queue-overview.js';
import type { PushRequest } from './push/push-task.js';
import type { Task } from './task.js';
import type {
  AttemptListParams,
  AttemptRecordParams,
  RunNowParams,
  RunNowResult,
  TaskAttempt,
} from './task-attempt.js';
import type { Tombstone } from './tombstone.js';

/**
 * The seam between the domain and the database: one method per operation,
 * each taking a params object. `store/pg-task-store.ts` implements it on
 * PostgreSQL (or PGlite) through Kysely. Not a public API; it changes with
 * the service.
 */
export interface TaskStore {
  /** Writes the configuration's queues and limits to the database; returns queue ids by name. */
  syncQueues(config: ServiceConfig): Promise<ReadonlyMap<string, number>>;
  insertTasks(params: TaskInsertParams): Promise<Task[]>;
  /** One statement: also reports a paused queue and the tasks the retry limit moved to the dead letters. */
  leaseTasks(params: TaskLeaseParams): Promise<LeaseResult>;
  /** Renews or releases a lease the caller still holds; see TaskModifyLeaseParams. */
  modifyLease(params: TaskModifyLeaseParams): Promise<Task>;
  /** Deletes, and tombstones the names not held by their form; returns the names that were deleted. */
  deleteTasks(params: TaskDeleteParams): Promise<string[]>;
  /** Deletes tasks only while they carry the given lease tokens (a worker's success); returns the names deleted. */
  deleteLeasedTasks(params: TaskDeleteLeasedParams): Promise<string[]>;
  getTask(params: TaskRef): Promise<Task | null>;
  /** True when the name is held by a tombstone (deleted within the retention period). */
  isTombstoned(params: TaskRef): Promise<boolean>;
  listTasks(params: TaskListParams): Promise<Task[]>;
  /** One request of a search (task-search.ts): at most `scanLimit` candidates of the walk read. */
  searchTasks(params: TaskSearchParams): Promise<TaskSearchResult>;
  queueStats(params: QueueRef): Promise<QueueStats>;
  /** Pauses (true) or resumes (false) a queue, for every process sharing the database. */
  setPaused(params: SetPausedParams): Promise<void>;
  isPaused(params: QueueRef): Promise<boolean>;
  /** Deletes and tombstones every task of the queue, a batch per statement; returns how many went. */
  purgeTasks(params: QueueRef & { readonly batchSize: number }): Promise<number>;
  listDeadLetters(params: DeadLetterListParams): Promise<DeadLetter[]>;
  /** Puts dead letters back as new tasks (names freed of their tombstones); returns how many, and their first names. */
  redriveDeadLetters(params: DeadLetterRedriveParams): Promise<DeadLetterRedriveResult>;
  /** Deletes the named dead letters of a queue; resolves to the names of those there were. */
  deleteDeadLetters(params: DeadLetterDeleteParams): Promise<string[]>;
  /** One dead letter by name, or null. */
  getDeadLetter(params: TaskRef): Promise<DeadLetter | null>;
  /** How many dead letters match the filter (`limit` and `after` ignored), counting at most `cap`. */
  countDeadLetters(params: DeadLetterListParams & { readonly cap: number }): Promise<number>;
  /** Tasks leased per minute over the last hour, oldest minute first (the last is the minute now running). */
  leaseCounts(params: QueueRef): Promise<LeaseCount[]>;
  /** A queue's most recent tombstones, newest first. */
  listTombstones(params: TombstoneListParams): Promise<Tombstone[]>;
  /** Ends a lease whoever holds it: the task is available at once. Null when the task is not live. */
  releaseLease(params: ReleaseLeaseParams): Promise<ReleaseResult | null>;
  /** Records attempts that did not succeed (task-attempt.ts), keeping each task's last ATTEMPTS_KEPT. */
  recordAttempts(params: AttemptRecordParams): Promise<void>;
  /** Records the lapsed last lease of the `limit` tasks a lease just moved to the dead letters. */
  recordDeadLetterLapses(params: QueueRef & { readonly limit: number }): Promise<void>;
  /** A task's or dead letter's recorded attempts, newest first. */
  listAttempts(params: AttemptListParams): Promise<TaskAttempt[]>;
  /** Makes tasks due now and wakes whoever waits on the queue; named tasks' audit entry rides in the statement. */
  runNow(params: RunNowParams & Audited): Promise<RunNowResult>;
  /** Writes one operator action's audit entry (for actions of more than one statement). */
  recordAudit(entry: NewAuditEntry): Promise<void>;
  /** The operators' overview of the given queues, in one query. */
  overview(params: { readonly queueIds: readonly number[] }): Promise<QueueOverview[]>;
  /** The given queues' failing push deliveries and dead letters of the last `deadLetterSeconds`, bounded per queue. */
  attention(params: {
    readonly queueIds: readonly number[];
    readonly deadLetterSeconds: number;
  }): Promise<QueueAttention[]>;
  /** Removes expired tombstones and dead letters, and old lease history. */
  cleanup(params: CleanupParams): Promise<CleanupResult>;
  /**
   * Resolves when tasks may have become leasable in the queue (a new task
   * was added, or a lease released), or when `timeoutMs` passes, or when
   * `signal` aborts; never rejects. Long-poll leases wait on it.
   */
  waitForTasks(params: QueueRef & { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<void>;
  /**
   * Whether a lease with this filter would find a task now (pause and lease
   * rate aside). Counts no lease call: a waiting long-poll on a rate-limited
   * queue asks before it tries again.
   */
  hasLeasableTasks(params: QueueRef & { readonly filter: TagFilter }): Promise<boolean>;
  /** Round trip to the database (health checks). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A queue as the store knows it: its row id, and its name for messages and results. */
export interface QueueRef {
  readonly queueId: number;
  readonly queueName: string;
}

export interface TaskRef extends QueueRef {
  readonly name: string;
}

/** A task to insert, validated by the domain. */
export interface NewTask {
  readonly name: string;
  /**
   * The caller chose the name (else the service generated it). Only a
   * chosen name can repeat in an add, be held by its form or be live: the
   * store checks those (add-statement.ts) for chosen names only.
   */
  readonly named?: boolean;
  readonly payload: Uint8Array;
  readonly tag: string | null;
  /** Absolute ETA in microseconds, or null to use `delayMs` from the database's now(). */
  readonly etaUsec: number | null;
  readonly delayMs: number;
  /** A push task's request; absent or null for pull tasks. */
  readonly push?: PushRequest | null;
}

export interface TaskInsertParams extends QueueRef {
  readonly tasks: readonly NewTask[];
  /**
   * Refuse chosen names held by their form (generated by the service within
   * the tombstone retention period): every add but an import's restore.
   * Default true.
   */
  readonly checkForm?: boolean;
  /** The caller's own transaction (a pg client or a Kysely transaction), when adding inside it. */
  readonly transaction?: CallerTransaction;
}

/**
 * Which tasks a lease may take: any; those of one tag; or those sharing the tag (or the absence of one) of the oldest leasable task,
 * which the lease statement itself finds ("group by tag" without a tag).
 */
export type TagFilter =
  { readonly kind: 'any' } | { readonly kind: 'tag'; readonly tag: string } | { readonly kind: 'oldest' };

export interface TaskLeaseParams extends QueueRef {
  readonly maxTasks: number;
  readonly leaseMs: number;
  readonly filter: TagFilter;
  /** The queue's retry limit: tasks leased this often are dropped instead. Null = unlimited. */
  readonly maxLeases: number | null;
  /** Lease calls per window that may return tasks, across all processes. Null = unlimited. */
  readonly leaseRate: LeaseRate | null;
  /** Total payload the result may carry; tasks past it stay available. */
  readonly payloadBudgetBytes: number;
}

/** What one lease statement did. */
export interface LeaseResult {
  readonly tasks: Task[];
  /** The queue is paused: nothing was leased. */
  readonly paused: boolean;
  /** Tasks the retry limit moved to the dead letters in this statement. */
  readonly deadLettered: number;
}

export interface TaskModifyLeaseParams extends TaskRef {
  /** The lease expiry the caller was handed (its etaUsec): the fencing token. */
  readonly leaseToken: number;
  /** New lease from now; 0 releases the task at once. */
  readonly leaseMs: number;
  /** When present, also sets (string) or clears (null) the tag. */
  readonly tag?: string | null;
  /** When present, records (string) or clears (null) the task's last error. */
  readonly lastError?: string | null;
}

/**
 * The audit entry an operator's action writes in the statement that does
 * it (see queue-operations.ts); the statement fills in the count.
 */
export interface Audited {
  readonly audit?: AuditIntent;
}

export interface SetPausedParams extends QueueRef, Audited {
  readonly paused: boolean;
}

export interface ReleaseLeaseParams extends TaskRef, Audited {}

/** What an administrator's release found: the task, and whether it was leased (and is now released). */
export interface ReleaseResult {
  readonly task: Task;
  readonly released: boolean;
}

export interface TaskDeleteParams extends QueueRef, Audited {
  readonly names: readonly string[];
  /**
   * Of `names`, those held by their form (generated by the service within
   * the retention period, see generated-name.ts): deleted without a
   * tombstone row. The other names get one.
   */
  readonly heldByForm: readonly string[];
}

export interface TaskDeleteLeasedParams extends QueueRef {
  /** The tasks' names, each once. */
  readonly names: readonly string[];
  /** For each of `names`, at the same index, the lease token (etaUsec) its holder was handed. */
  readonly leaseTokens: readonly number[];
  /** Of the names, those held by their form: deleted without a tombstone row. */
  readonly heldByForm: readonly string[];
}

export interface TaskListParams extends QueueRef {
  readonly limit: number;
  /** Continue after this task in (eta, name) order. */
  readonly after?: { readonly etaUsec: number; readonly name: string };
  /** Leave payloads out (REST list). */
  readonly withoutPayload?: boolean;
  /** Only tasks in this state (browsing); see TaskState. */
  readonly state?: TaskState;
  /** Only tasks with this tag; null = only untagged tasks. */
  readonly tag?: string | null;
}

/**
 * A state to search for: one of TaskState, or `failing`: a live task that
 * carries a last error (a worker or a delivery failed it, and it waits for
 * its next attempt), whatever its ETA.
 */
export type SearchState = TaskState | 'failing';

/**
 * Which index a search walks: by name (the primary key) when a name prefix
 * is given; by tag then ETA when a tag or tag prefix is; else by ETA. The
 * walk is the search's order, and what its cursor means.
 */
export type SearchWalk = 'name' | 'tag' | 'eta';

/** A position in a search's walk: the last candidate a request read. */
export interface SearchPosition {
  readonly etaUsec: number;
  readonly name: string;
  readonly tag: string | null;
}

export interface TaskSearchParams extends QueueRef {
  /** The index the request walks, and so its order (task-search.ts). */
  readonly walk: SearchWalk;
  /** Tasks per page. */
  readonly limit: number;
  /** Candidates of the walk read at most. */
  readonly scanLimit: number;
  readonly namePrefix?: string;
  readonly tag?: string;
  readonly tagPrefix?: string;
  readonly state?: SearchState;
  /** In the last error, any case. */
  readonly errorText?: string;
  /** In the payload's first PAYLOAD_SEARCH_BYTES bytes, as UTF-8 bytes. */
  readonly payloadText?: string;
  /** Continue after this candidate of the walk. */
  readonly after?: SearchPosition;
}

export interface TaskSearchResult {
  readonly tasks: Task[];
  /** The last candidate read, when more remain after it; null at the walk's end. */
  readonly next: SearchPosition | null;
  readonly scanned: number;
  /** The scan limit, not a full page, ended the request. */
  readonly bounded: boolean;
}

/**
 * Where a live task stands. With one timestamp per task: `available` when its
 * ETA has passed (never leased, released, or its lease lapsed); `leased` when
 * the ETA lies ahead and it has been leased (the ETA is the lease expiry);
 * `delayed` when the ETA lies ahead and it was never leased.
 */
export type TaskState = 'available' | 'leased' | 'delayed';

export interface DeadLetterListParams extends QueueRef {
  readonly limit: number;
  /** Continue after this dead letter in (diedUsec, name) order. */
  readonly after?: DeadLetterRef;
  /** Only dead letters with this tag. */
  readonly tag?: string;
  /** Only dead letters whose tag starts with this (dead-letter-filter.ts narrows further). */
  readonly tagPrefix?: string;
  /** Only dead letters whose last error contains this, any case. */
  readonly errorContains?: string;
  /** Only dead letters that died before this instant (microseconds since the epoch). */
  readonly diedBeforeUsec?: number;
  /** Newest death first (`after` then continues backwards); default oldest first. */
  readonly newestFirst?: boolean;
}

/** Tasks leased in one minute. */
export interface LeaseCount {
  /** The minute's start, in epoch seconds (the database's clock). */
  readonly minuteStart: number;
  readonly tasks: number;
}

export interface TombstoneListParams extends QueueRef {
  readonly limit: number;
}

export interface DeadLetterRedriveParams extends QueueRef {
  /** The dead letters to put back; null = all of the queue's. */
  readonly names: readonly string[] | null;
  /** Dead letters per statement. */
  readonly batchSize: number;
}

/** What a redrive put back: how many, and the first AUDIT_NAMES_KEPT names (for its audit entry). */
export interface DeadLetterRedriveResult {
  readonly count: number;
  readonly names: readonly string[];
}

export interface DeadLetterDeleteParams extends QueueRef, Audited {
  /** The dead letters to delete, by name. */
  readonly names: readonly string[];
}

export interface QueueStats {
  readonly totalTasks: number;
  readonly totalBytes: number;
  /** ETA of the task that has waited longest, or null for an empty queue. */
  readonly oldestEtaUsec: number | null;
  readonly leasedLastMinute: number;
  readonly leasedLastHour: number;
}

export interface CleanupParams {
  readonly tombstoneRetentionMs: number;
  readonly deadLetterRetentionMs: number;
  /** Rows removed per statement, so cleanup never holds long locks. */
  readonly batchSize: number;
}

export interface CleanupResult {
  readonly tombstonesRemoved: number;
  readonly deadLettersRemoved: number;
  readonly historyRemoved: number;
  /** Attempts of tasks neither live nor dead letters (sql/0019). */
  readonly attemptsRemoved: number;
}
