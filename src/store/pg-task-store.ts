import { sql } from 'kysely';
import type { ServiceConfig } from '../core/queue-config.js';
import type { Task } from '../core/task.js';
import type {
  CleanupParams,
  CleanupResult,
  QueueRef,
  QueueStats,
  TaskDeleteParams,
  TaskInsertParams,
  TaskLeaseParams,
  TaskListParams,
  TaskModifyLeaseParams,
  TaskRef,
  TaskStore,
} from '../core/task-store.js';
import { cleanup } from './cleanup.js';
import type { OpenDatabase } from './database.js';
import { deleteTasks } from './delete-tasks.js';
import { insertTasks } from './insert-tasks.js';
import { leaseTasks, oldestAvailableTag } from './lease-tasks.js';
import { modifyLease } from './modify-lease.js';
import { getTask, isTombstoned, listTasks, queueStats } from './read-tasks.js';
import type { StoreContext } from './store-context.js';
import { syncQueues } from './sync-queues.js';
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

  constructor(database: OpenDatabase, schema: string, options: { ownsDatabase?: boolean } = {}) {
    this.#database = database;
    this.#ctx = { db: database.db, schema };
    this.#ownsDatabase = options.ownsDatabase ?? true;
    this.#arrivals = new TaskArrivals(database, this.#ctx);
  }

  get database(): OpenDatabase {
    return this.#database;
  }

  get schema(): string {
    return this.#ctx.schema;
  }

  syncQueues(config: ServiceConfig): Promise<ReadonlyMap<string, number>> {
    return guard(() => syncQueues(this.#ctx, config), undefined);
  }

  async insertTasks(params: TaskInsertParams): Promise<Task[]> {
    const tasks = await guard(() => insertTasks(this.#ctx, params), params.queueName);
    // Waiters in this process need not wait for the notification's round trip
    // (and inside a caller's transaction the notification comes only at commit).
    if (!params.transaction) this.#arrivals.wake(params.queueId);
    return tasks;
  }

  leaseTasks(params: TaskLeaseParams): Promise<Task[]> {
    return guard(() => leaseTasks(this.#ctx, params), params.queueName);
  }

  oldestAvailableTag(params: QueueRef): Promise<string | null | undefined> {
    return guard(() => oldestAvailableTag(this.#ctx, params), params.queueName);
  }

  modifyLease(params: TaskModifyLeaseParams): Promise<Task> {
    return guard(() => modifyLease(this.#ctx, params), params.queueName);
  }

  deleteTasks(params: TaskDeleteParams): Promise<string[]> {
    return guard(() => deleteTasks(this.#ctx, params), params.queueName);
  }

  getTask(params: TaskRef): Promise<Task | null> {
    return guard(() => getTask(this.#ctx, params), params.queueName);
  }

  isTombstoned(params: TaskRef): Promise<boolean> {
    return guard(() => isTombstoned(this.#ctx, params), params.queueName);
  }

  listTasks(params: TaskListParams): Promise<Task[]> {
    return guard(() => listTasks(this.#ctx, params), params.queueName);
  }

  queueStats(params: QueueRef): Promise<QueueStats> {
    return guard(() => queueStats(this.#ctx, params), params.queueName);
  }

  cleanup(params: CleanupParams): Promise<CleanupResult> {
    return guard(() => cleanup(this.#ctx, params), undefined);
  }

  waitForTasks(params: QueueRef & { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<void> {
    return this.#arrivals.wait(params);
  }

  async ping(): Promise<void> {
    await guard(() => sql`select 1`.execute(this.#ctx.db), undefined);
  }

  async close(): Promise<void> {
    await this.#arrivals.close();
    if (this.#ownsDatabase) await this.#database.close();
  }
}

async function guard<T>(run: () => Promise<T>, queue: string | undefined): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw translateError(error, queue === undefined ? {} : { queue });
  }
}
