import { sql } from 'kysely';
import type { DeadLetter } from '../core/dead-letter.js';
import { isQueueError, QueueError } from '../core/errors.js';
import type { ServiceConfig } from '../core/queue-config.js';
import type { QueueAttention } from '../core/queue-attention.js';
import type { QueueOverview } from '../core/queue-overview.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { Task } from '../core/task.js';
import type {
  CleanupParams,
  CleanupResult,
  DeadLetterDeleteParams,
  DeadLetterListParams,
  DeadLetterRedriveParams,
  DeadLetterRedriveResult,
  LeaseResult,
  QueueRef,
  QueueStats,
  TagFilter,
  TaskDeleteLeasedParams,
  TaskDeleteParams,
  TaskInsertParams,
  TaskLeaseParams,
  TaskListParams,
  TaskModifyLeaseParams,
  TaskSearchParams,
  TaskSearchResult,
  TaskRef,
  TaskStore,
  SetPausedParams,
  ReleaseLeaseParams,
  ReleaseResult,
  TombstoneListParams,
  LeaseCount,
  Audited,
} from '../core/task-store.js';
import type { Tombstone } from '../core/tombstone.js';
import { AUDIT_NAMES_KEPT, type NewAuditEntry } from '../core/audit-log.js';
import { recordAudit } from './audit-log.js';
import { cleanup } from './cleanup.js';
import type { OpenDatabase } from './engine/database.js';
import { DatabaseWatch } from './engine/database-watch.js';
import { deleteDeadLetters, listDeadLetters, redriveDeadLetters } from './dead-letters.js';
import { countDeadLetters, getDeadLetter } from './dead-letter-reads.js';
import { schemaExists, schemaVersion } from './migrate/migrate.js';
import { deleteLeasedTasks } from './delete-leased-tasks.js';
import { deleteTasks } from './delete-tasks.js';
import { hasLeasableTasks } from './has-leasable-tasks.js';
import { insertTasks } from './insert-tasks.js';
import { leaseTasks } from './lease-tasks.js';
import {
  combinableLease,
  deleteCombined,
  insertCombined,
  leaseCombined,
  leaseCombineKey,
  MAX_COMBINED_ADD,
  MAX_COMBINED_ADD_TASKS,
  type Guard,
  type InsertOutcome,
} from './combined-statements.js';
import { StatisticsKeeper } from './statistics-keeper.js';
import { leaseCounts } from './lease-counts.js';
import { listTombstones } from './list-tombstones.js';
import { modifyLease } from './modify-lease.js';
import { purgeTasks } from './purge-tasks.js';
import { queueAttention } from './queue-attention.js';
import { queueOverview } from './queue-overview.js';
import { getTask, isTombstoned, listTasks, queueStats } from './read-tasks.js';
import { releaseLease } from './release-lease.js';
import { searchTasks } from './search-tasks.js';
import { runNow } from './run-now.js';
import { listAttempts, recordAttempts, recordDeadLetterLapses, type AttemptSweep } from './task-attempts.js';
import type {
  AttemptListParams,
  AttemptRecordParams,
  RunNowParams,
  RunNowResult,
  TaskAttempt,
} from '../core/task-attempt.js';
import { isPaused, setPaused } from './set-paused.js';
import type { StoreContext } from './store-context.js';
import { StatementGroup } from './statement-group.js';
import { syncQueues } from './definitions/sync-queues.js';
import { TaskArrivals } from './task-arrivals.js';
import { translateError } from './translate-error.js';

/**
 * The TaskStore on PostgreSQL or PGlite. Each method runs one named query
 * from this folder and turns any database error into a QueueError here, at
 * the edge, so nothing above sees a SQLSTATE.
 */
export class PgTaskStore implements TaskStore {
  readonly #database: OpenDatabase;
  readonly #ctx: StoreContext;
  readonly #ownsDatabase: boolean;
  readonly #arrivals: TaskArrivals;
  readonly #deletes: StatementGroup<TaskDeleteParams, string[]>;
  readonly #leases: StatementGroup<TaskLeaseParams, LeaseResult>;
  readonly #watch: DatabaseWatch;
  readonly #inserts: StatementGroup<TaskInsertParams, InsertOutcome>;
  readonly #statistics: StatisticsKeeper;
  readonly #guarded: Guard;
  /** Where the clean-up's sweep of attempts stopped (task-attempts.ts). */
  readonly #attemptSweep: AttemptSweep = new Map();

  constructor(database: OpenDatabase, schema: string, options: { ownsDatabase?: boolean; logger?: Logger } = {}) {
    this.#database = database;
    this.#ctx = { db: database.db, schema };
    this.#ownsDatabase = options.ownsDatabase ?? true;
    const logger = options.logger ?? silentLogger;
    this.#statistics = new StatisticsKeeper(this.#ctx, logger);
    this.#watch = new DatabaseWatch(logger);
    this.#guarded = (run, queue) => guarded(this.#watch, run, queue);
    this.#arrivals = new TaskArrivals(database, this.#ctx, logger);
    this.#deletes = new StatementGroup(
      (_key, requests) => deleteCombined(this.#ctx, this.#guarded, requests),
      (batch, next) => batch.reduce((n, r) => n + r.names.length, 0) + next.names.length <= 5000,
    );
    this.#leases = new StatementGroup(
      (_key, requests) => leaseCombined(this.#ctx, this.#guarded, requests),
      (batch, next) => batch.reduce((n, r) => n + r.maxTasks, 0) + next.maxTasks <= 1000,
    );
    this.#inserts = new StatementGroup(
      (_key, requests) => insertCombined(this.#ctx, this.#guarded, requests),
      (batch, next) => batch.reduce((n, r) => n + r.tasks.length, 0) + next.tasks.length <= MAX_COMBINED_ADD,
    );
  }

  /** Runs one query and turns its failure into a QueueError, noting the database's availability. */
  #guard<T>(run: () => Promise<T>, queue: string | undefined): Promise<T> {
    return this.#guarded(run, queue);
  }

  /**
   * The same guard for a store built on this one (PgPushStore): one watch
   * per database, so an outage is logged once ("database lost", then
   * "database regained") whichever store's query finds it.
   */
  guardQuery<T>(run: () => Promise<T>, queue: string | undefined): Promise<T> {
    return this.#guarded(run, queue);
  }

  /** The highest migration applied to the schema (0 when none is); TRANSIENT_ERROR when the schema is gone. */
  schemaVersion(): Promise<number> {
    return this.#guard(() => schemaVersion(this.#ctx.db, this.#ctx.schema), undefined);
  }

  /** Whether the schema holds the service's tables. */
  schemaExists(): Promise<boolean> {
    return this.#guard(() => schemaExists(this.#ctx.db, this.#ctx.schema), undefined);
  }

  get database(): OpenDatabase {
    return this.#database;
  }

  get schema(): string {
    return this.#ctx.schema;
  }

  syncQueues(config: ServiceConfig): Promise<ReadonlyMap<string, number>> {
    return this.#guard(() => syncQueues(this.#ctx, config), undefined);
  }

  /**
   * Concurrent small adds (up to 10 tasks) of one queue outside a caller's
   * transaction (and not an import's, which skips the form check) share a
   * statement (see StatementGroup), like leases and deletes. Each add keeps
   * its own all-or-nothing outcome: when the combined statement fails on
   * something one add brought (a held or taken name, an ETA too far ahead, a
   * storage limit), the adds run again one statement each, so only the add
   * at fault fails.
   */
  async insertTasks(params: TaskInsertParams): Promise<Task[]> {
    const outcome =
      params.transaction || params.tasks.length > MAX_COMBINED_ADD_TASKS || params.checkForm === false
        ? { tasks: await this.#guard(() => insertTasks(this.#ctx, params), params.queueName) }
        : await this.#inserts.submit(String(params.queueId), params);
    if ('error' in outcome) throw outcome.error;
    // Waiters in this process need not wait for the notification's round trip
    // (and inside a caller's transaction the notification comes only at commit).
    if (!params.transaction) this.#arrivals.wake(params.queueId);
    this.#statistics.noteAdded(outcome.tasks.length);
    return outcome.tasks;
  }

  /**
   * Concurrent leases of one queue with the same terms share a statement
   * (see StatementGroup), and the result is dealt out oldest first. Not for
   * rate-limited queues (each call must count as one call), nor when the
   * payload budget could bind (each caller has its own).
   */
  leaseTasks(params: TaskLeaseParams): Promise<LeaseResult> {
    if (!combinableLease(params)) return this.#guard(() => leaseTasks(this.#ctx, params), params.queueName);
    return this.#leases.submit(leaseCombineKey(params), params);
  }

  modifyLease(params: TaskModifyLeaseParams): Promise<Task> {
    return this.#guard(() => modifyLease(this.#ctx, params), params.queueName);
  }

  /** Concurrent deletes of one queue share a statement (see StatementGroup); an operator's (audited) runs alone. */
  deleteTasks(params: TaskDeleteParams): Promise<string[]> {
    if (params.audit !== undefined) return this.#guard(() => deleteTasks(this.#ctx, params), params.queueName);
    return this.#deletes.submit(String(params.queueId), params);
  }

  deleteLeasedTasks(params: TaskDeleteLeasedParams): Promise<string[]> {
    return this.#guard(() => deleteLeasedTasks(this.#ctx, params), params.queueName);
  }

  getTask(params: TaskRef): Promise<Task | null> {
    return this.#guard(() => getTask(this.#ctx, params), params.queueName);
  }

  isTombstoned(params: TaskRef): Promise<boolean> {
    return this.#guard(() => isTombstoned(this.#ctx, params), params.queueName);
  }

  listTasks(params: TaskListParams): Promise<Task[]> {
    return this.#guard(() => listTasks(this.#ctx, params), params.queueName);
  }

  searchTasks(params: TaskSearchParams): Promise<TaskSearchResult> {
    return this.#guard(() => searchTasks(this.#ctx, params), params.queueName);
  }

  queueStats(params: QueueRef): Promise<QueueStats> {
    return this.#guard(() => queueStats(this.#ctx, params), params.queueName);
  }

  setPaused(params: SetPausedParams): Promise<void> {
    return this.#guard(() => setPaused(this.#ctx, params), params.queueName);
  }

  isPaused(params: QueueRef): Promise<boolean> {
    return this.#guard(() => isPaused(this.#ctx, params), params.queueName);
  }

  purgeTasks(params: QueueRef & { readonly batchSize: number }): Promise<number> {
    return this.#guard(() => purgeTasks(this.#ctx, params), params.queueName);
  }

  listDeadLetters(params: DeadLetterListParams): Promise<DeadLetter[]> {
    return this.#guard(() => listDeadLetters(this.#ctx, params), params.queueName);
  }

  deleteDeadLetters(params: DeadLetterDeleteParams): Promise<string[]> {
    return this.#guard(() => deleteDeadLetters(this.#ctx, params), params.queueName);
  }

  getDeadLetter(params: TaskRef): Promise<DeadLetter | null> {
    return this.#guard(() => getDeadLetter(this.#ctx, params), params.queueName);
  }

  countDeadLetters(params: DeadLetterListParams & { readonly cap: number }): Promise<number> {
    return this.#guard(() => countDeadLetters(this.#ctx, params), params.queueName);
  }

  /**
   * A batch per statement until none is left. A batch that fails (a storage
   * limit, a name live again) fails the call; the error says how many
   * earlier batches were already put back (details.redriven).
   */
  async redriveDeadLetters(params: DeadLetterRedriveParams): Promise<DeadLetterRedriveResult> {
    let redriven = 0;
    const names: string[] = [];
    try {
      for (;;) {
        const batch = await this.#guard(() => redriveDeadLetters(this.#ctx, params), params.queueName);
        redriven += batch.length;
        names.push(...batch.slice(0, Math.max(0, AUDIT_NAMES_KEPT - names.length)));
        if (batch.length < params.batchSize) break;
      }
    } catch (error) {
      if (redriven === 0 || !isQueueError(error)) throw error;
      throw new QueueError(
        error.code,
        `${error.message} (${redriven} dead letters had been put back before)`,
        {
          ...error.details,
          redriven,
        },
        { cause: error },
      );
    } finally {
      if (redriven > 0) this.#arrivals.wake(params.queueId);
    }
    return { count: redriven, names };
  }

  leaseCounts(params: QueueRef): Promise<LeaseCount[]> {
    return this.#guard(() => leaseCounts(this.#ctx, params), params.queueName);
  }

  listTombstones(params: TombstoneListParams): Promise<Tombstone[]> {
    return this.#guard(() => listTombstones(this.#ctx, params), params.queueName);
  }

  async releaseLease(params: ReleaseLeaseParams): Promise<ReleaseResult | null> {
    const result = await this.#guard(() => releaseLease(this.#ctx, params), params.queueName);
    if (result?.released) this.#arrivals.wake(params.queueId);
    return result;
  }

  recordAttempts(params: AttemptRecordParams): Promise<void> {
    return this.#guard(() => recordAttempts(this.#ctx, params), params.queueName);
  }

  recordDeadLetterLapses(params: QueueRef & { readonly limit: number }): Promise<void> {
    return this.#guard(() => recordDeadLetterLapses(this.#ctx, params), params.queueName);
  }

  listAttempts(params: AttemptListParams): Promise<TaskAttempt[]> {
    return this.#guard(() => listAttempts(this.#ctx, params), params.queueName);
  }

  async runNow(params: RunNowParams & Audited): Promise<RunNowResult> {
    const result = await this.#guard(() => runNow(this.#ctx, params), params.queueName);
    // The statement notified the channel; this wakes waiters here too when nothing listens (a pooler).
    if (result.count > 0) this.#arrivals.wake(params.queueId);
    return result;
  }

  async recordAudit(entry: NewAuditEntry): Promise<void> {
    await this.#guard(() => recordAudit(this.#ctx, entry), entry.queue);
  }

  overview(params: { readonly queueIds: readonly number[] }): Promise<QueueOverview[]> {
    return this.#guard(() => queueOverview(this.#ctx, params), undefined);
  }

  attention(params: {
    readonly queueIds: readonly number[];
    readonly deadLetterSeconds: number;
  }): Promise<QueueAttention[]> {
    return this.#guard(() => queueAttention(this.#ctx, params), undefined);
  }

  cleanup(params: CleanupParams): Promise<CleanupResult> {
    return this.#guard(() => cleanup(this.#ctx, params, this.#attemptSweep), undefined);
  }

  waitForTasks(params: QueueRef & { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<void> {
    return this.#arrivals.wait(params);
  }

  hasLeasableTasks(params: QueueRef & { readonly filter: TagFilter }): Promise<boolean> {
    return this.#guard(() => hasLeasableTasks(this.#ctx, params), params.queueName);
  }

  async ping(): Promise<void> {
    await this.#guard(() => sql`/* ping */ select 1`.execute(this.#ctx.db), undefined);
  }

  async close(): Promise<void> {
    await this.#statistics.close();
    await this.#arrivals.close();
    if (this.#ownsDatabase) await this.#database.close();
  }
}

/** The watch of the store being constructed or called; one per store (see PgTaskStore.#guard). */
async function guarded<T>(watch: DatabaseWatch, run: () => Promise<T>, queue: string | undefined): Promise<T> {
  try {
    const result = await run();
    watch.succeeded();
    return result;
  } catch (error) {
    const translated = translateError(error, queue === undefined ? {} : { queue });
    watch.failed(translated);
    throw translated;
  }
}
