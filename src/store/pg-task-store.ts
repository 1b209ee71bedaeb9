import { sql } from 'kysely';
import type { DeadLetter } from '../core/dead-letter.js';
import { isQueueError, QueueError } from '../core/errors.js';
import type { ServiceConfig } from '../core/queue-config.js';
import type { QueueOverview } from '../core/queue-overview.js';
import { LIMITS } from '../core/limits.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { Task } from '../core/task.js';
import type {
  CleanupParams,
  CleanupResult,
  DeadLetterListParams,
  DeadLetterRedriveParams,
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
  TaskNamesParams,
  TaskRef,
  TaskStore,
  TombstoneListParams,
  LeaseCount,
} from '../core/task-store.js';
import type { Tombstone } from '../core/tombstone.js';
import { cleanup } from './cleanup.js';
import type { OpenDatabase } from './database.js';
import { DatabaseWatch } from './database-watch.js';
import { listDeadLetters, redriveDeadLetters } from './dead-letters.js';
import { schemaVersion } from './migrate.js';
import { deleteLeasedTasks } from './delete-leased-tasks.js';
import { deleteTasks } from './delete-tasks.js';
import { hasLeasableTasks } from './has-leasable-tasks.js';
import { insertTasks } from './insert-tasks.js';
import { leaseTasks } from './lease-tasks.js';
import { leaseCounts } from './lease-counts.js';
import { listTombstones } from './list-tombstones.js';
import { modifyLease } from './modify-lease.js';
import { purgeTasks } from './purge-tasks.js';
import { queueOverview } from './queue-overview.js';
import { getTask, isTombstoned, listTasks, liveTaskNames, queueStats } from './read-tasks.js';
import { releaseLease } from './release-lease.js';
import { isPaused, setPaused } from './set-paused.js';
import type { StoreContext } from './store-context.js';
import { StatementGroup } from './statement-group.js';
import { syncQueues } from './sync-queues.js';
import { TaskArrivals } from './task-arrivals.js';
import { analyzeIfStale } from './task-statistics.js';
import { translateError } from './translate-error.js';

const MAX_TASK_BYTES = LIMITS.maxTaskBytes;

/**
 * Tasks per combined add. The FIFO offsets of one statement (a microsecond
 * per task, see insert-tasks.ts) stay under the millisecond its ETA check
 * allows for them.
 */
const MAX_COMBINED_ADD = 500;

/**
 * Adds of more tasks than this run on their own: they are batches already,
 * and waiting for a statement in flight would only delay them (measured
 * with 4 producers of 100: no gain from combining, within the noise).
 */
const MAX_COMBINED_ADD_TASKS = 10;

/**
 * Whether a combined add failed on a refusal one add alone may cause, which
 * the database answered (with a SQLSTATE, or no row for an ETA too far
 * ahead), so nothing was stored. A lost connection or a timeout leaves the
 * outcome unknown: such errors are never retried.
 */
function refusedByDatabase(error: unknown): boolean {
  if (!isQueueError(error)) return false;
  if (error.code === 'INVALID_ETA') return true;
  if (error.code === 'TRANSIENT_ERROR' || error.code === 'DEADLINE_EXCEEDED') return false;
  const sqlState = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState);
}

/** One add's share of a combined add: its tasks, or the error it alone gets. */
type InsertOutcome = { readonly tasks: Task[] } | { readonly error: unknown };

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
  readonly #logger: Logger;
  /** Tasks this process added since it last compared the table's statistics with its size. */
  #addedSinceCheck = 0;
  /**
   * Adds after which to compare again: half the table's size at the last
   * check, from 1,000 to 100,000. The cap matters after a drain (deletes,
   * perhaps by other processes, which this count does not see): a table
   * checked at ten million tasks and emptied since is checked again within
   * 100,000 adds of a refill, not five million.
   */
  #nextCheck = 1000;
  #checking: Promise<void> | null = null;

  constructor(database: OpenDatabase, schema: string, options: { ownsDatabase?: boolean; logger?: Logger } = {}) {
    this.#database = database;
    this.#ctx = { db: database.db, schema };
    this.#ownsDatabase = options.ownsDatabase ?? true;
    const logger = options.logger ?? silentLogger;
    this.#logger = logger;
    this.#watch = new DatabaseWatch(logger);
    this.#arrivals = new TaskArrivals(database, this.#ctx, logger);
    this.#deletes = new StatementGroup(
      (_key, requests) => this.#deleteCombined(requests),
      (batch, next) => batch.reduce((n, r) => n + r.names.length, 0) + next.names.length <= 5000,
    );
    this.#leases = new StatementGroup(
      (_key, requests) => this.#leaseCombined(requests),
      (batch, next) => batch.reduce((n, r) => n + r.maxTasks, 0) + next.maxTasks <= 1000,
    );
    this.#inserts = new StatementGroup(
      (_key, requests) => this.#insertCombined(requests),
      (batch, next) => batch.reduce((n, r) => n + r.tasks.length, 0) + next.tasks.length <= MAX_COMBINED_ADD,
    );
  }

  /** Runs one query and turns its failure into a QueueError, noting the database's availability. */
  #guard<T>(run: () => Promise<T>, queue: string | undefined): Promise<T> {
    return guarded(this.#watch, run, queue);
  }

  /** The highest migration applied to the schema (0 when none is); TRANSIENT_ERROR when the schema is gone. */
  schemaVersion(): Promise<number> {
    return this.#guard(() => schemaVersion(this.#ctx.db, this.#ctx.schema), undefined);
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
   * transaction share a statement (see StatementGroup), like leases and
   * deletes. Each add keeps
   * its own all-or-nothing outcome: when the combined statement fails on
   * something one add brought (a held or taken name, an ETA too far ahead, a
   * storage limit), the adds run again one statement each, so only the add
   * at fault fails.
   */
  async insertTasks(params: TaskInsertParams): Promise<Task[]> {
    const outcome =
      params.transaction || params.tasks.length > MAX_COMBINED_ADD_TASKS
        ? { tasks: await this.#guard(() => insertTasks(this.#ctx, params), params.queueName) }
        : await this.#inserts.submit(String(params.queueId), params);
    if ('error' in outcome) throw outcome.error;
    // Waiters in this process need not wait for the notification's round trip
    // (and inside a caller's transaction the notification comes only at commit).
    if (!params.transaction) this.#arrivals.wake(params.queueId);
    this.#noteAdded(outcome.tasks.length);
    return outcome.tasks;
  }

  /**
   * Keeps the planner's statistics of the task table in step with fast
   * growth (see task-statistics.ts): after every half of the table's size in
   * adds by this process (#nextCheck), one query compares the exact count with the
   * planner's estimate, and analyzes the table when it is far behind. In the
   * background: no add waits for it.
   */
  #noteAdded(count: number): void {
    this.#addedSinceCheck += count;
    if (this.#addedSinceCheck < this.#nextCheck || this.#checking) return;
    this.#addedSinceCheck = 0;
    // Not through #guard: a failed check says nothing about the database's availability.
    this.#checking = analyzeIfStale(this.#ctx)
      .then(
        ({ tasks, analyzed }) => {
          this.#nextCheck = Math.min(100_000, Math.max(1000, Math.floor(tasks / 2)));
          if (analyzed) this.#logger.debug({ tasks }, 'task table analyzed: its statistics were far behind its size');
        },
        (error: unknown) => this.#logger.debug({ err: error }, 'task table statistics: check failed'),
      )
      .finally(() => {
        this.#checking = null;
      });
  }

  async #insertCombined(requests: readonly TaskInsertParams[]): Promise<InsertOutcome[]> {
    const first = requests[0]!;
    if (requests.length === 1) return [await this.#insertAlone(first)];
    let stored: Task[];
    try {
      stored = await this.#guard(() => insertTasks(this.#ctx, { ...first, tasks: requests.flatMap((r) => r.tasks) }), first.queueName);
    } catch (error) {
      // The database refused the statement and nothing was stored: find the
      // add at fault by running each alone. Any other failure (the database
      // unreachable, a timeout) is every add's.
      if (!refusedByDatabase(error)) throw error;
      return Promise.all(requests.map((r) => this.#insertAlone(r)));
    }
    let offset = 0;
    return requests.map((r) => ({ tasks: stored.slice(offset, (offset += r.tasks.length)) }));
  }

  async #insertAlone(params: TaskInsertParams): Promise<InsertOutcome> {
    try {
      return { tasks: await this.#guard(() => insertTasks(this.#ctx, params), params.queueName) };
    } catch (error) {
      return { error };
    }
  }

  /**
   * Concurrent leases of one queue with the same terms share a statement
   * (see StatementGroup), and the result is dealt out oldest first. Not for
   * rate-limited queues (each call must count as one call), nor when the
   * payload budget could bind (each caller has its own).
   */
  leaseTasks(params: TaskLeaseParams): Promise<LeaseResult> {
    const combinable = params.leaseRate === null && params.payloadBudgetBytes >= params.maxTasks * MAX_TASK_BYTES;
    if (!combinable) return this.#guard(() => leaseTasks(this.#ctx, params), params.queueName);
    const key = JSON.stringify([params.queueId, params.filter, params.leaseMs, params.maxLeases]);
    return this.#leases.submit(key, params);
  }

  /** The paused flag goes to every caller; the dead-letter count to the first only, so totals stay right. */
  async #leaseCombined(requests: readonly TaskLeaseParams[]): Promise<LeaseResult[]> {
    const first = requests[0]!;
    const maxTasks = requests.reduce((n, r) => n + r.maxTasks, 0);
    const result = await this.#guard(
      () => leaseTasks(this.#ctx, { ...first, maxTasks, payloadBudgetBytes: maxTasks * MAX_TASK_BYTES }),
      first.queueName,
    );
    let offset = 0;
    return requests.map((r, i) => ({
      tasks: result.tasks.slice(offset, (offset += r.maxTasks)),
      paused: result.paused,
      deadLettered: i === 0 ? result.deadLettered : 0,
    }));
  }

  modifyLease(params: TaskModifyLeaseParams): Promise<Task> {
    return this.#guard(() => modifyLease(this.#ctx, params), params.queueName);
  }

  /** Concurrent deletes of one queue share a statement (see StatementGroup). */
  deleteTasks(params: TaskDeleteParams): Promise<string[]> {
    return this.#deletes.submit(String(params.queueId), params);
  }

  deleteLeasedTasks(params: TaskDeleteLeasedParams): Promise<string[]> {
    return this.#guard(() => deleteLeasedTasks(this.#ctx, params), params.queueName);
  }

  async #deleteCombined(requests: readonly TaskDeleteParams[]): Promise<string[][]> {
    const first = requests[0]!;
    const names = [...new Set(requests.flatMap((r) => r.names))];
    // Callers decide a name's form by their clocks; should two disagree (a
    // name's hold ending between them), the name gets its tombstone row.
    const tracked = new Set<string>();
    const byForm = new Set<string>();
    for (const r of requests) {
      const held = new Set(r.heldByForm);
      for (const name of r.names) (held.has(name) ? byForm : tracked).add(name);
    }
    const heldByForm = [...byForm].filter((name) => !tracked.has(name));
    const deleted = new Set(await this.#guard(() => deleteTasks(this.#ctx, { ...first, names, heldByForm }), first.queueName));
    // A name two callers asked for counts as deleted for the first of them only.
    return requests.map((r) =>
      r.names.filter((name) => {
        if (!deleted.has(name)) return false;
        deleted.delete(name);
        return true;
      }),
    );
  }

  getTask(params: TaskRef): Promise<Task | null> {
    return this.#guard(() => getTask(this.#ctx, params), params.queueName);
  }

  liveTaskNames(params: TaskNamesParams): Promise<string[]> {
    return this.#guard(() => liveTaskNames(this.#ctx, params), params.queueName);
  }

  isTombstoned(params: TaskRef): Promise<boolean> {
    return this.#guard(() => isTombstoned(this.#ctx, params), params.queueName);
  }

  listTasks(params: TaskListParams): Promise<Task[]> {
    return this.#guard(() => listTasks(this.#ctx, params), params.queueName);
  }

  queueStats(params: QueueRef): Promise<QueueStats> {
    return this.#guard(() => queueStats(this.#ctx, params), params.queueName);
  }

  setPaused(params: QueueRef & { readonly paused: boolean }): Promise<void> {
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

  /**
   * A batch per statement until none is left. A batch that fails (a storage
   * limit, a name live again) fails the call; the error says how many
   * earlier batches were already put back (details.redriven).
   */
  async redriveDeadLetters(params: DeadLetterRedriveParams): Promise<number> {
    let redriven = 0;
    try {
      for (;;) {
        const n = await this.#guard(() => redriveDeadLetters(this.#ctx, params), params.queueName);
        redriven += n;
        if (n < params.batchSize) break;
      }
    } catch (error) {
      if (redriven === 0 || !isQueueError(error)) throw error;
      throw new QueueError(error.code, `${error.message} (${redriven} dead letters had been put back before)`, {
        ...error.details,
        redriven,
      }, { cause: error });
    } finally {
      if (redriven > 0) this.#arrivals.wake(params.queueId);
    }
    return redriven;
  }

  leaseCounts(params: QueueRef): Promise<LeaseCount[]> {
    return this.#guard(() => leaseCounts(this.#ctx, params), params.queueName);
  }

  listTombstones(params: TombstoneListParams): Promise<Tombstone[]> {
    return this.#guard(() => listTombstones(this.#ctx, params), params.queueName);
  }

  async releaseLease(params: TaskRef): Promise<Task | null> {
    const task = await this.#guard(() => releaseLease(this.#ctx, params), params.queueName);
    if (task) this.#arrivals.wake(params.queueId);
    return task;
  }

  overview(params: { readonly queueIds: readonly number[] }): Promise<QueueOverview[]> {
    return this.#guard(() => queueOverview(this.#ctx, params), undefined);
  }

  cleanup(params: CleanupParams): Promise<CleanupResult> {
    return this.#guard(() => cleanup(this.#ctx, params), undefined);
  }

  waitForTasks(params: QueueRef & { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<void> {
    return this.#arrivals.wait(params);
  }

  hasLeasableTasks(params: QueueRef & { readonly filter: TagFilter }): Promise<boolean> {
    return this.#guard(() => hasLeasableTasks(this.#ctx, params), params.queueName);
  }

  async ping(): Promise<void> {
    await this.#guard(() => sql`select 1`.execute(this.#ctx.db), undefined);
  }

  async close(): Promise<void> {
    await this.#checking;
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
