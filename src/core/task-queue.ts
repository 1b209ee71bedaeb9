import type { CallerTransaction } from './caller-transaction.js';
import { browseTasks } from './browse-tasks.js';
import { searchTasks, type TaskSearch, type TaskSearchPage } from './task-search.js';
import { QueueError } from './errors.js';
import { LIMITS } from './limits.js';
import { leaseWithWait } from './long-poll.js';
import { heldByForm, missingTaskError } from './name-holds.js';
import type { QueueConfig } from './queue-config.js';
import { recordLapses, recordWorkerError } from './attempt-history.js';
import type { QueueContext } from './queue-context.js';
import { requireIntegerIn } from './require-integer.js';
import type { Task, TaskOptions } from './task.js';
import type { LeaseResult, QueueStats, TagFilter, TaskLeaseParams } from './task-store.js';
import { durationToMs, type TimeUnit } from './time-unit.js';
import { validateNewTask } from './validate-task.js';
import { checkKnownAddOptions } from './known-task-fields.js';
import { validateTag } from './validate-tag.js';
import { deleteLeasedTasks } from './delete-leased-tasks.js';
import { failureLease } from './failure-lease.js';
import { QueueWorkers, type TaskHandler, type TaskWorker, type WorkerOptions } from './worker/queue-workers.js';

/** Options of `leaseTasks`. */
export interface LeaseOptions {
  /** How long the lease lasts, in `unit`s (0 to one week). */
  readonly lease: number;
  /** Unit of `lease`: seconds (default), minutes, hours, days or milliseconds. */
  readonly unit?: TimeUnit;
  /** At most this many tasks (1 to 1000). */
  readonly maxTasks: number;
  /** Lease only tasks with this tag. */
  readonly tag?: string;
  /** Lease only tasks sharing one tag: `tag`, or without it the tag of the oldest available task. */
  readonly groupByTag?: boolean;
  /** Payload the result may carry at most (default and maximum 32 MB). Tasks past it stay available. */
  readonly payloadLimitBytes?: number;
  /**
   * Long-poll: when nothing is leasable, wait up to this many milliseconds
   * (at most 60 000) for tasks to arrive instead of resolving to [] at once
   * (default 0). A paused queue is waited on like an empty one.
   */
  readonly waitMs?: number;
  /**
   * Ends a wait early (the caller went away); the lease then resolves to [].
   * May be a function that gives the signal: it is called only when the
   * lease does wait (nothing leasable at the first attempt), for callers
   * whose signal costs to build.
   */
  readonly signal?: AbortSignal | (() => AbortSignal | undefined);
}

/** Options of `add`. */
export interface AddOptions {
  /**
   * The caller's own open transaction: a Kysely transaction, or a `pg` client
   * on which BEGIN has run. The tasks become visible only when the caller
   * commits, and vanish if it rolls back. At most 5 tasks per transaction.
   */
  readonly transaction?: CallerTransaction;
  /**
   * The tasks are restored from an export (`taskqueue import`): names in
   * the service's generated form are accepted. Any other add refuses such a
   * name while it is held by its form (see `add`). Live names and names
   * held by tombstone rows are refused all the same.
   */
  readonly restore?: boolean;
}

/** A task, or just what identifies its lease: name and the lease token it was handed. */
export type TaskLeaseRef = Pick<Task, 'name' | 'etaUsec'>;

/**
 * A handle on one queue: the in-process API of the hosting application.
 * Obtained from `service.getQueue(name)`.
 */
export class TaskQueue {
  readonly #ctx: QueueContext;
  readonly #workers = new QueueWorkers();

  /** Built by TaskQueueService, one per configured queue. */
  constructor(ctx: QueueContext) {
    this.#ctx = ctx;
  }

  /** The queue's row id in the database. */
  get id(): number {
    return this.#ctx.ref.queueId;
  }

  /** The queue's name. */
  get name(): string {
    return this.#ctx.config.name;
  }

  /** The queue's configuration (mode, retry limit, ACL, limits). */
  get config(): QueueConfig {
    return this.#ctx.config;
  }

  /**
   * Adds one task; resolves to the stored task (with its generated name, if
   * any). A name the caller gives that is in the service's generated form
   * and was generated within the tombstone retention period is refused:
   * TASK_ALREADY_EXISTS while its task is live, else TOMBSTONED_TASK (its
   * delete wrote no tombstone row; the form holds the name). Only
   * `restore` lets such names back in.
   */
  add(task: TaskOptions, options?: AddOptions): Promise<Task>;
  /** Adds up to 100 tasks in one statement, all or nothing. */
  add(tasks: readonly TaskOptions[], options?: AddOptions): Promise<Task[]>;
  async add(tasks: TaskOptions | readonly TaskOptions[], options: AddOptions = {}): Promise<Task | Task[]> {
    const list: readonly TaskOptions[] = Array.isArray(tasks) ? tasks : [tasks as TaskOptions];
    checkKnownAddOptions(options, this.name);
    if (list.length === 0) return [];
    if (list.length > LIMITS.maxTasksPerAdd) {
      throw new QueueError(
        'TOO_MANY_TASKS',
        `at most ${LIMITS.maxTasksPerAdd} tasks may be added at once, got ${list.length}`,
        {
          queue: this.name,
          limit: LIMITS.maxTasksPerAdd,
        },
      );
    }
    const validated = list.map((task, i) => validateNewTask(this.#ctx.config, task, i, this.#ctx.routes));
    // The 5-per-transaction limit is counted inside the caller's transaction
    // by the store; a name given twice, held by its form or live is refused
    // by the store's add statement, the one the SQL API runs too.
    const transaction = options.transaction;
    const stored = await this.#ctx.store.insertTasks({
      ...this.#ctx.ref,
      tasks: validated,
      ...(options.restore === true ? { checkForm: false } : {}),
      ...(transaction === undefined ? {} : { transaction }),
    });
    // Inside a caller's transaction this counts the add when it is made, not when it commits.
    this.#ctx.events.added(this.name, stored.length);
    return Array.isArray(tasks) ? stored : (stored[0] as Task);
  }

  /**
   * Leases up to `maxTasks` tasks, oldest ETA first, for `lease` `unit`s.
   * Resolves to [] when nothing is leasable, or when this queue's lease rate
   * (10 calls per second unless configured) is used up. Fails with
   * QUEUE_PAUSED while the queue is paused (the check is part of the lease
   * statement; it costs no extra round trip).
   *
   * With `waitMs`, an empty result is not final: the lease waits for tasks
   * (see long-poll.ts) and resolves as soon as it gets some, or to [] when
   * the time is up or `signal` aborts; QUEUE_PAUSED only if the queue was
   * still paused at the last attempt.
   */
  async leaseTasks(options: LeaseOptions): Promise<Task[]> {
    this.#requirePull('lease');
    const maxTasks = requireIntegerIn(options.maxTasks, 'maxTasks', 1, LIMITS.maxTasksPerLease, this.name);
    const leaseMs = this.#leaseMs(options.lease, options.unit);
    const budget = requireIntegerIn(
      options.payloadLimitBytes ?? LIMITS.maxLeasePayloadBytes,
      'payloadLimitBytes',
      0,
      LIMITS.maxLeasePayloadBytes,
      this.name,
    );
    const waitMs = requireIntegerIn(options.waitMs ?? 0, 'waitMs', 0, LIMITS.maxLeaseWaitMs, this.name);

    // Without a tag, "group by tag" takes the tag of the oldest leasable task: the lease statement picks it.
    const tag = validateTag(options.tag, { queue: this.name, field: 'tag' });
    const filter: TagFilter =
      tag !== null ? { kind: 'tag', tag } : options.groupByTag ? { kind: 'oldest' } : { kind: 'any' };
    const params: TaskLeaseParams = {
      ...this.#ctx.ref,
      maxTasks,
      leaseMs,
      filter,
      maxLeases: this.#ctx.config.maxLeases,
      leaseRate: this.#ctx.config.leaseRate,
      payloadBudgetBytes: budget,
    };
    const leaseOnce = (p: TaskLeaseParams) => this.#leaseOnce(p);
    const result =
      waitMs > 0
        ? await leaseWithWait(this.#ctx.store, leaseOnce, params, {
            waitMs,
            signal: options.signal,
            now: this.#ctx.now,
          })
        : await leaseOnce(params);
    if (result.paused) {
      throw new QueueError(
        'QUEUE_PAUSED',
        `queue "${this.name}" is paused; leases return no tasks until it is resumed`,
        {
          queue: this.name,
        },
      );
    }
    return result.tasks;
  }

  async #leaseOnce(params: TaskLeaseParams): Promise<LeaseResult> {
    const result = await this.#ctx.store.leaseTasks(params);
    this.#reportLease(result.tasks, result.deadLettered);
    await recordLapses(this.#ctx, result.tasks, result.deadLettered);
    return result;
  }

  /**
   * Counts a lease for TaskEvents. A task handed out with a retry count
   * above 1 was leased before and not deleted: its earlier lease lapsed (or
   * was handed back with a lease of 0). Dead-lettered tasks lapsed too.
   */
  #reportLease(tasks: readonly Task[], deadLettered: number): void {
    let lapsed = deadLettered;
    for (const task of tasks) if (task.retryCount > 1) lapsed++;
    if (tasks.length > 0) this.#ctx.events.leased(this.name, tasks.length);
    if (lapsed > 0) this.#ctx.events.expired(this.name, lapsed);
    if (deadLettered > 0) this.#ctx.events.deadLettered(this.name, deadLettered);
  }

  /** Leases only tasks of one tag: `tag`, or without it the tag of the oldest available task. */
  leaseTasksByTag(options: Omit<LeaseOptions, 'groupByTag'>): Promise<Task[]> {
    return this.leaseTasks({ ...options, groupByTag: true });
  }

  /**
   * Sets the lease of a task the caller holds to `lease` from now (0 releases
   * it at once). `task` must carry the lease token it was handed (`etaUsec`);
   * fails with TASK_LEASE_EXPIRED when that lease has run out or another has
   * replaced it. Resolves to the task with its new `etaUsec`.
   */
  async modifyTaskLease(task: TaskLeaseRef, lease: number, unit: TimeUnit = 'seconds'): Promise<Task> {
    return this.updateTask(task, { lease, unit });
  }

  /**
   * modifyTaskLease, plus an optional tag or last error change (the REST
   * update and patch methods). `null` clears either; leaving it out keeps it.
   */
  async updateTask(
    task: TaskLeaseRef,
    change: { lease: number; unit?: TimeUnit; tag?: string | null; lastError?: string | null },
  ): Promise<Task> {
    this.#requirePull('modify the lease of');
    const leaseMs = this.#leaseMs(change.lease, change.unit);
    if (!Number.isSafeInteger(task.etaUsec)) {
      throw new QueueError('INVALID_REQUEST', 'the task must carry its lease token (etaUsec)', {
        queue: this.name,
        field: 'etaUsec',
      });
    }
    const tag = change.tag === undefined ? undefined : validateTag(change.tag, { queue: this.name, field: 'tag' });
    // A modify that matched nothing is explained by the store (lease
    // expired, deleted, unknown), as the SQL API's modify_lease explains it.
    const changed = await this.#ctx.store.modifyLease({
      ...this.#ctx.ref,
      name: task.name,
      leaseToken: task.etaUsec,
      leaseMs,
      ...(tag === undefined ? {} : { tag }),
      ...(change.lastError === undefined ? {} : { lastError: change.lastError }),
    });
    if (typeof change.lastError === 'string') await recordWorkerError(this.#ctx, changed, change.lastError);
    return changed;
  }

  /**
   * Hands back a held task that failed: its lease set to the queue's backoff delay for this retry
   * (`<retry-parameters>`), the error's message (at most 1000 characters) kept as its last error,
   * also in its dead letter. Needs its lease token; TASK_LEASE_EXPIRED as for updateTask.
   */
  failTask(task: TaskLeaseRef & Pick<Task, 'retryCount'>, error: unknown): Promise<Task> {
    const { leaseMs, lastError } = failureLease(task.retryCount, this.#ctx.config.retry, error, this.name);
    return this.updateTask(task, { lease: leaseMs, unit: 'milliseconds', lastError });
  }

  /** Runs `handler` on this queue's tasks until `stop()` (core/worker/task-worker.ts, docs/workers.md). */
  work(handler: TaskHandler<Task>, options: WorkerOptions = {}): TaskWorker<Task> {
    this.#requirePull('work on');
    return this.#workers.start(this, handler, options, { maxWaitMs: LIMITS.maxLeaseWaitMs }, this.#ctx.events.worker);
  }

  /** Stops every worker of this queue (see TaskWorker.stop); the service's close calls it. */
  stopWorkers(): Promise<void> {
    return this.#workers.stopAll();
  }

  /** Deletes tasks only while each still carries the lease token given (see delete-leased-tasks.ts). */
  deleteLeasedTasks(tasks: readonly TaskLeaseRef[]): Promise<boolean[]> {
    return deleteLeasedTasks(this.#ctx, tasks);
  }

  /**
   * Deletes tasks by name, whether available or leased (also after the lease
   * ran out). Their names stay held for the tombstone period: a name the
   * caller chose by a tombstone row; a name the service generated by its
   * form, for the retention period from its creation, without a row (half
   * the cost of a delete; see generated-name.ts). Resolves to true for each
   * task that was deleted, false for a name that was unknown.
   */
  deleteTask(task: string | TaskLeaseRef): Promise<boolean>;
  deleteTask(tasks: readonly (string | TaskLeaseRef)[]): Promise<boolean[]>;
  async deleteTask(tasks: string | TaskLeaseRef | readonly (string | TaskLeaseRef)[]): Promise<boolean | boolean[]> {
    const list = Array.isArray(tasks) ? tasks : [tasks as string | TaskLeaseRef];
    if (list.length > LIMITS.maxTasksPerDelete) {
      throw new QueueError(
        'TOO_MANY_TASKS',
        `at most ${LIMITS.maxTasksPerDelete} tasks may be deleted at once, got ${list.length}`,
        {
          queue: this.name,
        },
      );
    }
    const names = list.map((t) => (typeof t === 'string' ? t : t.name));
    for (const name of names) {
      if (typeof name !== 'string') {
        throw new QueueError('INVALID_TASK_NAME', 'deleteTask takes task names or tasks', { queue: this.name });
      }
    }
    const unique = [...new Set(names)];
    // A generated name past its form's hold (its task lived longer than the
    // retention period) gets a row like a chosen one, held from the delete.
    const byForm = unique.filter((name) => heldByForm(this.#ctx, name));
    const deleted = new Set(await this.#ctx.store.deleteTasks({ ...this.#ctx.ref, names: unique, heldByForm: byForm }));
    if (deleted.size > 0) this.#ctx.events.deleted(this.name, deleted.size);
    const outcome = names.map((name) => deleted.has(name));
    return Array.isArray(tasks) ? outcome : (outcome[0] as boolean);
  }

  /** One task by name; UNKNOWN_TASK or TOMBSTONED_TASK when it is not live. */
  async getTask(name: string): Promise<Task> {
    const task = await this.#ctx.store.getTask({ ...this.#ctx.ref, name });
    if (task) return task;
    throw await this.missingTaskError(name);
  }

  /** Live tasks in ETA order, a page at a time; pass the last task of a page as `after`. */
  listTasks(options: { limit?: number; after?: TaskLeaseRef; withoutPayload?: boolean } = {}): Promise<Task[]> {
    return browseTasks(this.#ctx, options);
  }

  /** Searches the live tasks by name prefix, tag, state, error and payload text, a bounded request at a time (task-search.ts). */
  searchTasks(search: TaskSearch = {}): Promise<TaskSearchPage> {
    return searchTasks(this.#ctx, search);
  }

  /** Whether the queue is paused (as stored in the database, so as every process sees it). Operators pause through `service.operate`. */
  isPaused(): Promise<boolean> {
    return this.#ctx.store.isPaused(this.#ctx.ref);
  }

  /** Task count, bytes, oldest ETA, and tasks leased in the last minute and hour. */
  fetchStatistics(): Promise<QueueStats> {
    return this.#ctx.store.queueStats(this.#ctx.ref);
  }

  /**
   * Resolves when tasks may have arrived in this queue (or after `timeoutMs`,
   * or when `signal` aborts). `leaseTasks({ waitMs })` waits with it.
   */
  waitForTasks(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return this.#ctx.store.waitForTasks({ ...this.#ctx.ref, timeoutMs, ...(signal ? { signal } : {}) });
  }

  /** The error that explains why a name is not live: TOMBSTONED_TASK or UNKNOWN_TASK (see name-holds.ts). */
  missingTaskError(name: string): Promise<QueueError> {
    return missingTaskError(this.#ctx, name);
  }

  #requirePull(action: string): void {
    if (this.#ctx.config.mode !== 'pull') {
      throw new QueueError(
        'INVALID_QUEUE_MODE',
        `cannot ${action} tasks of push queue "${this.name}"; only pull queues can be leased`,
        {
          queue: this.name,
        },
      );
    }
  }

  #leaseMs(lease: number, unit: TimeUnit | undefined): number {
    const ms = durationToMs(lease, unit ?? 'seconds', 'lease');
    if (ms > LIMITS.maxLeaseMs) {
      throw new QueueError('INVALID_REQUEST', `a lease may last at most one week (604800 seconds)`, {
        queue: this.name,
        field: 'lease',
      });
    }
    return ms;
  }
}
