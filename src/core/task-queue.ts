import type { CallerTransaction } from './caller-transaction.js';
import type { DeadLetter, DeadLetterRef } from './dead-letter.js';
import { isQueueError, QueueError } from './errors.js';
import { isHeldByForm } from './generated-name.js';
import { LIMITS } from './limits.js';
import type { QueueConfig } from './queue-config.js';
import { TASK_NAME_PATTERN, type Task, type TaskOptions } from './task.js';
import { noTaskEvents, type TaskEvents } from './task-events.js';
import type { LeaseCount, LeaseResult, QueueStats, TagFilter, TaskLeaseParams, TaskState, TaskStore } from './task-store.js';
import { durationToMs, type TimeUnit } from './time-unit.js';
import { DEFAULT_TOMBSTONE_RETENTION_MS, type Tombstone } from './tombstone.js';
import { validateNewTask } from './validate-task.js';
import { validateTag } from './validate-tag.js';

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
  /** Ends a wait early (the caller went away); the lease then resolves to []. */
  readonly signal?: AbortSignal;
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

/** Statistics of one queue. */
export type QueueStatistics = QueueStats;

/** Options of `browseTasks`: `listTasks` with filters, for operators. */
export interface BrowseOptions {
  /** At most this many tasks (1 to 1000, default 100). */
  readonly limit?: number;
  /** Continue after this task (the last of the previous page). */
  readonly after?: TaskLeaseRef;
  /** Only tasks in this state. */
  readonly state?: TaskState;
  /** Only tasks with this tag; null = only untagged tasks. */
  readonly tag?: string | null;
  /** Leave payloads out. */
  readonly withoutPayload?: boolean;
}

/** Options of `listDeadLetters`. */
export interface DeadLetterListOptions {
  /** At most this many (1 to 1000). */
  readonly limit: number;
  /** Continue after this dead letter (the last of the previous page). */
  readonly after?: DeadLetterRef;
  /** Only dead letters with this tag. */
  readonly tag?: string;
}

/**
 * Longest single wait between two lease attempts of a long-poll: a change
 * no notification announces (an expired lease, a resumed queue) is seen
 * within this time.
 */
const WAIT_SLICE_MS = 1000;

/**
 * Shortest time between two lease attempts of one long-poll, so that a
 * burst of notifications (or a wake-up whose task another consumer took
 * first) cannot turn the loop into a busy poll of the database.
 */
const MIN_ATTEMPT_INTERVAL_MS = 20;

/** Tasks deleted per statement by `purge`, dead letters put back per statement by `redrive`. */
const PURGE_BATCH = 1000;
const REDRIVE_BATCH = 500;

/**
 * A handle on one queue: the in-process API of the hosting application.
 * Obtained from `service.getQueue(name)`.
 */
export class TaskQueue {
  readonly #store: TaskStore;
  readonly #config: QueueConfig;
  readonly #ref: { readonly queueId: number; readonly queueName: string };
  readonly #events: TaskEvents;
  readonly #retentionMs: number;

  constructor(
    store: TaskStore,
    config: QueueConfig,
    queueId: number,
    events: TaskEvents = noTaskEvents,
    tombstoneRetentionMs: number = DEFAULT_TOMBSTONE_RETENTION_MS,
  ) {
    this.#store = store;
    this.#config = config;
    this.#ref = { queueId, queueName: config.name };
    this.#events = events;
    this.#retentionMs = tombstoneRetentionMs;
  }

  /** The queue's row id in the database. */
  get id(): number {
    return this.#ref.queueId;
  }

  /** The queue's name. */
  get name(): string {
    return this.#config.name;
  }

  /** The queue's configuration (mode, retry limit, ACL, limits). */
  get config(): QueueConfig {
    return this.#config;
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
    if (list.length === 0) return [];
    if (list.length > LIMITS.maxTasksPerAdd) {
      throw new QueueError('TOO_MANY_TASKS', `at most ${LIMITS.maxTasksPerAdd} tasks may be added at once, got ${list.length}`, {
        queue: this.name,
        limit: LIMITS.maxTasksPerAdd,
      });
    }
    const validated = list.map((task, i) => validateNewTask(this.#config, task, i));
    const seen = new Set<string>();
    for (const task of validated) {
      if (seen.has(task.name)) {
        throw new QueueError('DUPLICATE_TASK_NAME', `task name "${task.name}" appears twice in one add`, {
          queue: this.name,
          task: task.name,
        });
      }
      seen.add(task.name);
    }
    // The 5-per-transaction limit is counted inside the caller's transaction by the store.
    const transaction = options.transaction;
    if (options.restore !== true) {
      // Generated names (no name given) are new; only a given name can be a copy.
      const held = validated.filter((task, i) => typeof list[i]!.name === 'string' && this.#heldByForm(task.name));
      if (held.length > 0) throw await this.#heldNameError(held.map((task) => task.name), transaction);
    }
    const stored = await this.#store.insertTasks({
      ...this.#ref,
      tasks: validated,
      maxEtaAheadMs: LIMITS.maxEtaAheadMs,
      ...(transaction === undefined ? {} : { transaction }),
    });
    // Inside a caller's transaction this counts the add when it is made, not when it commits.
    this.#events.added(this.name, stored.length);
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
   * (see #leaseWithWait) and resolves as soon as it gets some, or to [] when
   * the time is up or `signal` aborts; QUEUE_PAUSED only if the queue was
   * still paused at the last attempt.
   */
  async leaseTasks(options: LeaseOptions): Promise<Task[]> {
    this.#requirePull('lease');
    const maxTasks = options.maxTasks;
    if (!Number.isInteger(maxTasks) || maxTasks < 1 || maxTasks > LIMITS.maxTasksPerLease) {
      throw new QueueError('INVALID_REQUEST', `maxTasks must be an integer from 1 to ${LIMITS.maxTasksPerLease}, got ${String(maxTasks)}`, {
        queue: this.name,
        field: 'maxTasks',
      });
    }
    const leaseMs = this.#leaseMs(options.lease, options.unit);
    const budget = options.payloadLimitBytes ?? LIMITS.maxLeasePayloadBytes;
    if (!Number.isInteger(budget) || budget < 0 || budget > LIMITS.maxLeasePayloadBytes) {
      throw new QueueError('INVALID_REQUEST', `payloadLimitBytes must be an integer from 0 to ${LIMITS.maxLeasePayloadBytes}`, {
        queue: this.name,
        field: 'payloadLimitBytes',
      });
    }
    const waitMs = options.waitMs ?? 0;
    if (!Number.isInteger(waitMs) || waitMs < 0 || waitMs > LIMITS.maxLeaseWaitMs) {
      throw new QueueError('INVALID_REQUEST', `waitMs must be an integer from 0 to ${LIMITS.maxLeaseWaitMs}`, {
        queue: this.name,
        field: 'waitMs',
      });
    }

    // Without a tag, "group by tag" takes the tag of the oldest leasable task: the lease statement picks it.
    const tag = validateTag(options.tag, { queue: this.name, field: 'tag' });
    const filter: TagFilter = tag !== null ? { kind: 'tag', tag } : options.groupByTag ? { kind: 'oldest' } : { kind: 'any' };
    const params: TaskLeaseParams = {
      ...this.#ref,
      maxTasks,
      leaseMs,
      filter,
      maxLeases: this.#config.maxLeases,
      leaseRate: this.#config.leaseRate,
      payloadBudgetBytes: budget,
    };
    const result = waitMs > 0 ? await this.#leaseWithWait(params, waitMs, options.signal) : await this.#leaseOnce(params);
    if (result.paused) {
      throw new QueueError('QUEUE_PAUSED', `queue "${this.name}" is paused; leases return no tasks until it is resumed`, {
        queue: this.name,
      });
    }
    return result.tasks;
  }

  async #leaseOnce(params: TaskLeaseParams): Promise<LeaseResult> {
    const result = await this.#store.leaseTasks(params);
    this.#reportLease(result.tasks, result.deadLettered);
    return result;
  }

  /**
   * A lease that, when nothing is leasable, waits up to `waitMs` for tasks.
   * Every attempt is an ordinary lease statement, so the queue's lease rate
   * applies to each one; on a rate-limited queue a waiting call attempts
   * again only when a probe finds a task to take. Between attempts the caller holds no database
   * connection: the store's `waitForTasks` resolves when it hears that tasks
   * may have arrived (LISTEN/NOTIFY on one shared connection, and adds of
   * this process at once), and at the latest after WAIT_SLICE_MS, so a
   * missed notification costs at most that. It stops when tasks come back,
   * when the time is up, or when `signal` aborts. A paused queue counts as
   * empty: the wait goes on, and a resume is seen at the next attempt.
   */
  async #leaseWithWait(params: TaskLeaseParams, waitMs: number, signal: AbortSignal | undefined): Promise<LeaseResult> {
    const deadline = Date.now() + waitMs;
    let result = await this.#leaseOnce(params);
    for (;;) {
      const remaining = deadline - Date.now();
      if (result.tasks.length > 0 || remaining <= 0) return result;
      if (signal?.aborted) return { ...result, paused: false };
      const waitStart = Date.now();
      await this.#store.waitForTasks({ ...this.#ref, timeoutMs: Math.min(remaining, WAIT_SLICE_MS), ...(signal ? { signal } : {}) });
      const waited = Date.now() - waitStart;
      if (waited < MIN_ATTEMPT_INTERVAL_MS) await pause(MIN_ATTEMPT_INTERVAL_MS - waited, signal);
      if (signal?.aborted) return { ...result, paused: false };
      // On a rate-limited queue every attempt counts against the lease rate
      // (10 calls a second by default): ten idle long-polls re-trying once a
      // second would use it all and leave consumers with work nothing. So a
      // waiting call tries again only when a task is there to take; the
      // probe counts no call.
      if (params.leaseRate !== null && !(await this.#store.hasLeasableTasks({ ...this.#ref, filter: params.filter }))) continue;
      result = await this.#leaseOnce(params);
    }
  }

  /**
   * Counts a lease for TaskEvents. A task handed out with a retry count
   * above 1 was leased before and not deleted: its earlier lease lapsed (or
   * was handed back with a lease of 0). Dead-lettered tasks lapsed too.
   */
  #reportLease(tasks: readonly Task[], deadLettered: number): void {
    let lapsed = deadLettered;
    for (const task of tasks) if (task.retryCount > 1) lapsed++;
    if (tasks.length > 0) this.#events.leased(this.name, tasks.length);
    if (lapsed > 0) this.#events.expired(this.name, lapsed);
    if (deadLettered > 0) this.#events.deadLettered(this.name, deadLettered);
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
   * modifyTaskLease, plus an optional tag change (the REST update and patch
   * methods). `tag: null` clears the tag; leaving it out keeps it.
   */
  async updateTask(task: TaskLeaseRef, change: { lease: number; unit?: TimeUnit; tag?: string | null }): Promise<Task> {
    this.#requirePull('modify the lease of');
    const leaseMs = this.#leaseMs(change.lease, change.unit);
    if (!Number.isSafeInteger(task.etaUsec)) {
      throw new QueueError('INVALID_REQUEST', 'the task must carry its lease token (etaUsec)', { queue: this.name, field: 'etaUsec' });
    }
    const tag = change.tag === undefined ? undefined : validateTag(change.tag, { queue: this.name, field: 'tag' });
    try {
      return await this.#store.modifyLease({
        ...this.#ref,
        name: task.name,
        leaseToken: task.etaUsec,
        leaseMs,
        ...(tag === undefined ? {} : { tag }),
      });
    } catch (error) {
      // The store knows deleted names by their tombstone rows; a name held by
      // its form has none, and is deleted all the same (see missingTaskError).
      if (isQueueError(error, 'UNKNOWN_TASK') && this.#heldByForm(task.name)) {
        throw new QueueError('TOMBSTONED_TASK', `task "${task.name}" has been deleted`, error.details, { cause: error });
      }
      throw error;
    }
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
      throw new QueueError('TOO_MANY_TASKS', `at most ${LIMITS.maxTasksPerDelete} tasks may be deleted at once, got ${list.length}`, {
        queue: this.name,
      });
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
    const heldByForm = unique.filter((name) => this.#heldByForm(name));
    const deleted = new Set(await this.#store.deleteTasks({ ...this.#ref, names: unique, heldByForm }));
    if (deleted.size > 0) this.#events.deleted(this.name, deleted.size);
    const outcome = names.map((name) => deleted.has(name));
    return Array.isArray(tasks) ? outcome : (outcome[0] as boolean);
  }

  /** One task by name; UNKNOWN_TASK or TOMBSTONED_TASK when it is not live. */
  async getTask(name: string): Promise<Task> {
    const task = await this.#store.getTask({ ...this.#ref, name });
    if (task) return task;
    throw await this.missingTaskError(name);
  }

  /** Live tasks in ETA order, a page at a time; pass the last task of a page as `after`. */
  listTasks(options: { limit?: number; after?: TaskLeaseRef; withoutPayload?: boolean } = {}): Promise<Task[]> {
    return this.browseTasks(options);
  }

  /**
   * `listTasks` with filters, for operators: only tasks in one state
   * (available, leased, delayed) and/or with one tag (null = untagged), in
   * ETA order, a page at a time.
   */
  async browseTasks(options: BrowseOptions = {}): Promise<Task[]> {
    const limit = this.#pageLimit(options.limit ?? 100);
    if (options.after && (!Number.isSafeInteger(options.after.etaUsec) || typeof options.after.name !== 'string')) {
      throw new QueueError('INVALID_REQUEST', 'after must be a task (integer etaUsec and a name)', { queue: this.name, field: 'after' });
    }
    const state = options.state;
    if (state !== undefined && state !== 'available' && state !== 'leased' && state !== 'delayed') {
      throw new QueueError('INVALID_REQUEST', `state must be available, leased or delayed, got "${String(state)}"`, {
        queue: this.name,
        field: 'state',
      });
    }
    const tag = options.tag === undefined ? undefined : validateTag(options.tag, { queue: this.name, field: 'tag' });
    return this.#store.listTasks({
      ...this.#ref,
      limit,
      ...(options.after ? { after: { etaUsec: options.after.etaUsec, name: options.after.name } } : {}),
      withoutPayload: options.withoutPayload ?? false,
      ...(state === undefined ? {} : { state }),
      ...(tag === undefined ? {} : { tag }),
    });
  }

  /**
   * Pauses the queue for every process sharing the database: adds and
   * deletes go on, leases return nothing (QUEUE_PAUSED in-process, an empty
   * result over REST) until `resume`. Survives restarts.
   */
  pause(): Promise<void> {
    return this.#store.setPaused({ ...this.#ref, paused: true });
  }

  /** Lets leases return tasks again. */
  resume(): Promise<void> {
    return this.#store.setPaused({ ...this.#ref, paused: false });
  }

  /** Whether the queue is paused (as stored in the database, so as every process sees it). */
  isPaused(): Promise<boolean> {
    return this.#store.isPaused(this.#ref);
  }

  /**
   * Deletes every task of the queue, leased or not, tombstoning their names
   * as deletes do. Works in batches, so it never holds long locks; tasks
   * added while it runs may survive. Resolves to how many were deleted.
   */
  async purge(): Promise<number> {
    const deleted = await this.#store.purgeTasks({ ...this.#ref, batchSize: PURGE_BATCH });
    if (deleted > 0) this.#events.deleted(this.name, deleted);
    return deleted;
  }

  /** Dead letters of this queue, oldest death first, a page at a time. */
  async listDeadLetters(options: DeadLetterListOptions): Promise<DeadLetter[]> {
    const limit = this.#pageLimit(options.limit);
    const after = options.after;
    if (after && (!Number.isSafeInteger(after.diedUsec) || typeof after.name !== 'string')) {
      throw new QueueError('INVALID_REQUEST', 'after must be a dead letter (integer diedUsec and a name)', {
        queue: this.name,
        field: 'after',
      });
    }
    const tag = options.tag === undefined ? null : validateTag(options.tag, { queue: this.name, field: 'tag' });
    return this.#store.listDeadLetters({
      ...this.#ref,
      limit,
      ...(after ? { after: { name: after.name, diedUsec: after.diedUsec } } : {}),
      ...(tag === null ? {} : { tag }),
    });
  }

  /**
   * Puts dead letters back as new tasks under their names (their tombstones
   * give way), leasable at once with a retry count of 0: the named ones, or
   * with no names all of the queue's. Storage limits apply; a name that is
   * live again (re-added after its tombstone expired) fails with
   * TASK_ALREADY_EXISTS. Resolves to how many went back; names with no dead
   * letter are ignored.
   */
  async redrive(names?: readonly string[]): Promise<number> {
    if (names !== undefined) {
      if (!Array.isArray(names) || names.some((name) => typeof name !== 'string' || !TASK_NAME_PATTERN.test(name))) {
        throw new QueueError('INVALID_TASK_NAME', 'redrive takes task names', { queue: this.name });
      }
      if (names.length === 0) return 0;
    }
    const redriven = await this.#store.redriveDeadLetters({
      ...this.#ref,
      names: names === undefined ? null : [...new Set(names)],
      batchSize: REDRIVE_BATCH,
    });
    if (redriven > 0) this.#events.added(this.name, redriven);
    return redriven;
  }

  /**
   * The queue's most recent tombstones (names held after a delete, a purge
   * or the retry limit), newest first, with the reason each task went.
   */
  async listTombstones(options: { limit?: number } = {}): Promise<Tombstone[]> {
    return this.#store.listTombstones({ ...this.#ref, limit: this.#pageLimit(options.limit ?? 50) });
  }

  /**
   * Ends the lease on a task whoever holds it (an administrator's release;
   * no lease token needed): the task is available at once, its retry count
   * unchanged. A task that is not leased is returned as it is.
   * UNKNOWN_TASK or TOMBSTONED_TASK when it is not live.
   */
  async releaseLease(name: string): Promise<Task> {
    const task = await this.#store.releaseLease({ ...this.#ref, name });
    if (task) return task;
    throw await this.missingTaskError(name);
  }

  /**
   * Tasks leased per minute over the last hour (every process's leases):
   * sixty minutes, oldest first, the last one still running.
   */
  leasesPerMinute(): Promise<LeaseCount[]> {
    return this.#store.leaseCounts(this.#ref);
  }

  /** Task count, bytes, oldest ETA, and tasks leased in the last minute and hour. */
  fetchStatistics(): Promise<QueueStatistics> {
    return this.#store.queueStats(this.#ref);
  }

  /**
   * Resolves when tasks may have arrived in this queue (or after `timeoutMs`,
   * or when `signal` aborts). `leaseTasks({ waitMs })` waits with it.
   */
  waitForTasks(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return this.#store.waitForTasks({ ...this.#ref, timeoutMs, ...(signal ? { signal } : {}) });
  }

  /**
   * The error that explains why a name is not live: TOMBSTONED_TASK or
   * UNKNOWN_TASK. A name held by its form that is not live counts as
   * deleted without asking the store: its delete wrote no tombstone row.
   * (The service cannot tell whether such a name was ever used in this
   * queue; it can only have come from a task of the service, so "deleted"
   * is the likely truth, and either way the name cannot be added.)
   */
  async missingTaskError(name: string): Promise<QueueError> {
    const details = { queue: this.name, task: name };
    if (TASK_NAME_PATTERN.test(name) && (this.#heldByForm(name) || (await this.#store.isTombstoned({ ...this.#ref, name })))) {
      return new QueueError('TOMBSTONED_TASK', `task "${name}" has been deleted`, details);
    }
    return new QueueError('UNKNOWN_TASK', `task "${name}" does not exist in queue "${this.name}"`, details);
  }

  /**
   * The refusal of an add that gave names held by their form: whichever of
   * them is live already exists (as the insert would have said); otherwise
   * the first was deleted. One lookup, and only for such adds.
   */
  async #heldNameError(names: readonly string[], transaction: CallerTransaction | undefined): Promise<QueueError> {
    const live = await this.#store.liveTaskNames({ ...this.#ref, names, ...(transaction === undefined ? {} : { transaction }) });
    const name = live[0];
    if (name !== undefined) {
      return new QueueError('TASK_ALREADY_EXISTS', `task "${name}" already exists`, { queue: this.name, task: name });
    }
    const first = names[0]!;
    return new QueueError('TOMBSTONED_TASK', `task "${first}" was deleted recently; its name is held and cannot be reused yet`, {
      queue: this.name,
      task: first,
    });
  }

  /** Whether `name` is held by its form now (see generated-name.ts); Node's clock, as the name's own time. */
  #heldByForm(name: string): boolean {
    return isHeldByForm(name, Date.now(), this.#retentionMs);
  }

  #pageLimit(limit: number): number {
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new QueueError('INVALID_REQUEST', 'limit must be an integer from 1 to 1000', { queue: this.name, field: 'limit' });
    }
    return limit;
  }

  #requirePull(action: string): void {
    if (this.#config.mode !== 'pull') {
      throw new QueueError('INVALID_QUEUE_MODE', `cannot ${action} tasks of push queue "${this.name}"; only pull queues can be leased`, {
        queue: this.name,
      });
    }
  }

  #leaseMs(lease: number, unit: TimeUnit | undefined): number {
    const ms = durationToMs(lease, unit ?? 'seconds', 'lease');
    if (ms > LIMITS.maxLeaseMs) {
      throw new QueueError('INVALID_REQUEST', `a lease may last at most one week (604800 seconds)`, { queue: this.name, field: 'lease' });
    }
    return ms;
  }
}

/** An abortable sleep: resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
