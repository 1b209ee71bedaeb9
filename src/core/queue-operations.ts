import type { AuditAction, AuditIntent, Operator } from './audit-log.js';
import { browseTasks, type BrowseOptions } from './browse-tasks.js';
import type { DeadLetter, DeadLetterRef } from './dead-letter.js';
import { DeadLetterDesk } from './dead-letter-desk.js';
import { isQueueError, QueueError } from './errors.js';
import { LIMITS } from './limits.js';
import { heldByForm, missingTaskError } from './name-holds.js';
import type { QueueContext } from './queue-context.js';
import { requireIntegerIn } from './require-integer.js';
import { runTasksNow } from './run-now.js';
import type { RunNowResult, RunNowSelection, TaskAttempt } from './task-attempt.js';
import { TASK_NAME_PATTERN, type Task } from './task.js';
import { importedTask, toExportLine, type ExportLine } from './task-export.js';
import type { TaskQueue } from './task-queue.js';
import type { DeadLetterRedriveResult, LeaseCount, QueueStats } from './task-store.js';
import type { Tombstone } from './tombstone.js';
import { validateTag } from './validate-tag.js';

/** Tasks deleted per statement by `purge`, dead letters put back per statement by `redrive`. */
const PURGE_BATCH = 1000;
const REDRIVE_BATCH = 500;

/** Tasks per page of an export: at most 100 MB of payloads in memory at once. */
export const EXPORT_PAGE = 100;
/** Dead letters per page of `deadLetters()`. */
export const DEAD_LETTER_PAGE = 500;

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
 * The operator API of one queue, for one operator: what the console, the
 * admin REST routes and the CLI do, written once. Obtained from
 * `service.operate(queue, { actor, source })`.
 *
 * The audit policy lives here and nowhere else (docs/operations.md): every
 * action that changes the queue writes one audit entry naming the
 * operator, the action, the task when it names one, and how many tasks it
 * touched (0 when it found none to touch: a delete of names already gone,
 * the release of a task that was not leased). An action that fails
 * records nothing, except the batches a redrive put back before a later
 * one failed. Where one statement does the action (pause, resume, release,
 * delete), the entry is written by that statement, so the action and its
 * record commit together. Purge, redrive and import take several
 * statements (or the add's own path): their entry follows the last, with
 * what was done. An export hands every payload out, so it is recorded
 * too, when it ends (read to its end, left early or failed), with how
 * many tasks went out. Reads (browse, tombstones, counts, dead letters)
 * are not recorded.
 */
export class QueueOperations {
  readonly #ctx: QueueContext;
  readonly #queue: TaskQueue;
  readonly #operator: Operator;

  constructor(ctx: QueueContext, queue: TaskQueue, operator: Operator) {
    if (
      typeof operator?.actor !== 'string' ||
      operator.actor === '' ||
      typeof operator.source !== 'string' ||
      operator.source === ''
    ) {
      throw new QueueError('INVALID_REQUEST', 'an operator needs an actor and a source (for the audit log)', {
        queue: ctx.ref.queueName,
      });
    }
    this.#ctx = ctx;
    this.#queue = queue;
    this.#operator = operator;
  }

  /** The queue's name. */
  get name(): string {
    return this.#ctx.ref.queueName;
  }

  /**
   * Pauses the queue for every process sharing the database: adds and
   * deletes go on, leases return nothing (QUEUE_PAUSED in-process, an empty
   * result over REST) until `resume`. Survives restarts.
   */
  pause(): Promise<void> {
    return this.#ctx.store.setPaused({ ...this.#ctx.ref, paused: true, audit: this.#intent('pause') });
  }

  /** Lets leases return tasks again. */
  resume(): Promise<void> {
    return this.#ctx.store.setPaused({ ...this.#ctx.ref, paused: false, audit: this.#intent('resume') });
  }

  /** Whether the queue is paused (as stored in the database, so as every process sees it). */
  isPaused(): Promise<boolean> {
    return this.#ctx.store.isPaused(this.#ctx.ref);
  }

  /**
   * Deletes every task of the queue, leased or not, tombstoning their names
   * as deletes do. Works in batches, so it never holds long locks; tasks
   * added while it runs may survive. Resolves to how many were deleted.
   */
  async purge(): Promise<number> {
    const deleted = await this.#ctx.store.purgeTasks({ ...this.#ctx.ref, batchSize: PURGE_BATCH });
    if (deleted > 0) this.#ctx.events.deleted(this.name, deleted);
    await this.#record('purge', deleted);
    return deleted;
  }

  /**
   * Deletes tasks by name, whoever holds them (an administrator's delete),
   * as a consumer's deleteTask does, and records it. Resolves to true for
   * each task deleted, false for a name that was not live. Names that can
   * never be task names are INVALID_TASK_NAME, before anything happens.
   */
  async deleteTasks(names: readonly string[]): Promise<boolean[]> {
    this.#requireNames(names, 'deleteTasks');
    if (names.length > LIMITS.maxTasksPerDelete) {
      throw new QueueError(
        'TOO_MANY_TASKS',
        `at most ${LIMITS.maxTasksPerDelete} tasks may be deleted at once, got ${names.length}`,
        {
          queue: this.name,
        },
      );
    }
    const unique = [...new Set(names)];
    const deleted = new Set(
      await this.#ctx.store.deleteTasks({
        ...this.#ctx.ref,
        names: unique,
        heldByForm: unique.filter((name) => heldByForm(this.#ctx, name)),
        audit: this.#intent('delete_task', unique.length === 1 ? unique[0]! : null),
      }),
    );
    if (deleted.size > 0) this.#ctx.events.deleted(this.name, deleted.size);
    return names.map((name) => deleted.has(name));
  }

  /**
   * Ends the lease on a task whoever holds it (an administrator's release;
   * no lease token needed): the task is available at once, its retry count
   * unchanged. A task that is not leased is returned as it is (`released`
   * false, and the entry counts 0). UNKNOWN_TASK or TOMBSTONED_TASK when it
   * is not live (and nothing is recorded).
   */
  async releaseLease(name: string): Promise<{ task: Task; released: boolean }> {
    this.#requireNames([name], 'releaseLease');
    const result = await this.#ctx.store.releaseLease({
      ...this.#ctx.ref,
      name,
      audit: this.#intent('release_lease', name),
    });
    if (result) return result;
    throw await missingTaskError(this.#ctx, name);
  }

  /**
   * Ends the leases on several tasks at once (a selection in the console),
   * as `releaseLease` does for one, and records one entry counting the
   * tasks that were leased and are now released. Names that are not live
   * (gone since they were chosen) or not leased are left as they are.
   * Resolves to true for each task released.
   */
  async releaseLeases(names: readonly string[]): Promise<boolean[]> {
    this.#requireNames(names, 'releaseLeases');
    if (names.length > LIMITS.maxTasksPerDelete) {
      throw new QueueError(
        'TOO_MANY_TASKS',
        `at most ${LIMITS.maxTasksPerDelete} leases may be released at once, got ${names.length}`,
        {
          queue: this.name,
        },
      );
    }
    if (names.length === 0) return [];
    const unique = [...new Set(names)];
    const target = unique.length === 1 ? unique[0]! : null;
    const released = new Set<string>();
    try {
      for (const name of unique) {
        const result = await this.#ctx.store.releaseLease({ ...this.#ctx.ref, name });
        if (result?.released) released.add(name);
      }
    } catch (error) {
      // Leases released before the failure are recorded.
      if (released.size > 0) await this.#record('release_lease', released.size, target, [...released]);
      throw error;
    }
    await this.#record('release_lease', released.size, target, [...released]);
    return names.map((name) => released.has(name));
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
    if (names !== undefined) this.#requireNames(names, 'redrive');
    // No names asked for: nothing to do, and nothing to record.
    if (names?.length === 0) return 0;
    const unique = names === undefined ? null : [...new Set(names)];
    const target = unique?.length === 1 ? unique[0]! : null;
    let redriven: DeadLetterRedriveResult;
    try {
      redriven = await this.#ctx.store.redriveDeadLetters({
        ...this.#ctx.ref,
        names: unique,
        batchSize: REDRIVE_BATCH,
      });
    } catch (error) {
      // Earlier batches were put back before a later one failed: they are recorded (counted, not named).
      const done = isQueueError(error) ? error.details.redriven : undefined;
      if (typeof done === 'number' && done > 0) {
        this.#ctx.events.added(this.name, done);
        await this.#record('redrive', done, target);
      }
      throw error;
    }
    if (redriven.count > 0) this.#ctx.events.added(this.name, redriven.count);
    await this.#record('redrive', redriven.count, target, redriven.names);
    return redriven.count;
  }

  /**
   * Deletes dead letters by name for good (letters that must never run
   * again), and records it in the same statement, counting those deleted.
   * Their names stay held until their tombstones expire. Names with no dead
   * letter are ignored; names that can never be task names are
   * INVALID_TASK_NAME before anything happens. Resolves to how many went.
   */
  async deleteDeadLetters(names: readonly string[]): Promise<number> {
    this.#requireNames(names, 'deleteDeadLetters');
    if (names.length > LIMITS.maxTasksPerDelete) {
      throw new QueueError(
        'TOO_MANY_TASKS',
        `at most ${LIMITS.maxTasksPerDelete} dead letters may be deleted at once, got ${names.length}`,
        {
          queue: this.name,
        },
      );
    }
    // No names asked for: nothing to do, and nothing to record.
    if (names.length === 0) return 0;
    const unique = [...new Set(names)];
    const audit = this.#intent('delete_dead_letters', unique.length === 1 ? unique[0]! : null);
    return (await this.#ctx.store.deleteDeadLetters({ ...this.#ctx.ref, names: unique, audit })).length;
  }

  /**
   * Records that the operator fired one of this queue's cron jobs now
   * (`cron run`: the firing is the cron service's, which added `task`), so
   * its entry comes from here as every operator action's does.
   */
  recordCronRun(task: string): Promise<void> {
    return this.#record('cron_run', 1, task);
  }

  /**
   * Adds up to 100 exported tasks (export lines) in one statement, all or
   * nothing, under their names and ETAs; exported generated names come back
   * under their names. Resolves to how many were added.
   */
  async importTasks(lines: readonly ExportLine[]): Promise<number> {
    if (lines.length === 0) return 0;
    const added = await this.#queue.add(lines.map(importedTask), { restore: true });
    const names = added.map((task) => task.name);
    await this.#record('import_tasks', added.length, null, names);
    return added.length;
  }

  /**
   * Every live task of the queue in ETA order, as export lines, a page at a
   * time: the next page is read when the previous one has been taken. One
   * audit entry when the export ends (read to its end, left early or
   * failed), counting the tasks handed out.
   */
  async *exportTasks(pageSize = EXPORT_PAGE): AsyncGenerator<ExportLine[], void, undefined> {
    requireIntegerIn(pageSize, 'pageSize', 1, 1000, this.name);
    let exported = 0;
    try {
      let after: Task | undefined;
      for (;;) {
        const page = await browseTasks(this.#ctx, { limit: pageSize, ...(after ? { after } : {}) });
        if (page.length > 0) {
          exported += page.length;
          yield page.map(toExportLine);
        }
        after = page[page.length - 1];
        if (page.length < pageSize || !after) return;
      }
    } finally {
      await this.#record('export_tasks', exported);
    }
  }

  /** Live tasks with filters (state, tag), in ETA order, a page at a time. */
  browseTasks(options: BrowseOptions = {}): Promise<Task[]> {
    return browseTasks(this.#ctx, options);
  }

  /** Dead letters of this queue, oldest death first, one page. */
  async listDeadLetters(options: DeadLetterListOptions): Promise<DeadLetter[]> {
    const limit = requireIntegerIn(options.limit, 'limit', 1, 1000, this.name);
    const after = options.after;
    if (after && (!Number.isSafeInteger(after.diedUsec) || typeof after.name !== 'string')) {
      throw new QueueError('INVALID_REQUEST', 'after must be a dead letter (integer diedUsec and a name)', {
        queue: this.name,
        field: 'after',
      });
    }
    const tag = options.tag === undefined ? null : validateTag(options.tag, { queue: this.name, field: 'tag' });
    return this.#ctx.store.listDeadLetters({
      ...this.#ctx.ref,
      limit,
      ...(after ? { after: { name: after.name, diedUsec: after.diedUsec } } : {}),
      ...(tag === null ? {} : { tag }),
    });
  }

  /** One dead letter, filtered pages, their count, and bulk actions on all a filter matches. */
  deadLetterDesk(): DeadLetterDesk {
    return new DeadLetterDesk(this.#ctx, this.#operator);
  }

  /** Every dead letter of this queue, oldest death first, a page at a time. */
  async *deadLetters(pageSize = DEAD_LETTER_PAGE): AsyncGenerator<DeadLetter[], void, undefined> {
    let after: DeadLetterRef | undefined;
    for (;;) {
      const page = await this.listDeadLetters({ limit: pageSize, ...(after ? { after } : {}) });
      if (page.length > 0) yield page;
      const last = page[page.length - 1];
      if (page.length < pageSize || !last) return;
      after = { name: last.name, diedUsec: last.diedUsec };
    }
  }

  /**
   * The queue's most recent tombstones (names held after a delete, a purge
   * or the retry limit), newest first, with the reason each task went.
   */
  async listTombstones(options: { limit?: number } = {}): Promise<Tombstone[]> {
    return this.#ctx.store.listTombstones({
      ...this.#ctx.ref,
      limit: requireIntegerIn(options.limit ?? 50, 'limit', 1, 1000, this.name),
    });
  }

  /**
   * Tasks leased per minute over the last hour (every process's leases):
   * sixty minutes, oldest first, the last one still running.
   */
  leasesPerMinute(): Promise<LeaseCount[]> {
    return this.#ctx.store.leaseCounts(this.#ctx.ref);
  }

  /** Makes the named tasks, or all matching a filter, due now (run-now.ts); recorded as `run_now`. */
  runNow(selection: RunNowSelection): Promise<RunNowResult> {
    return runTasksNow(this.#ctx, selection, (target) => this.#intent('run_now', target));
  }

  /** A task's or dead letter's last attempts that did not succeed, newest first (task-attempt.ts). */
  attempts(name: string): Promise<TaskAttempt[]> {
    this.#requireNames([name], 'attempts');
    return this.#ctx.store.listAttempts({ ...this.#ctx.ref, name });
  }

  /** Task count, bytes, oldest ETA, and tasks leased in the last minute and hour. */
  statistics(): Promise<QueueStats> {
    return this.#ctx.store.queueStats(this.#ctx.ref);
  }

  #intent(action: AuditAction, target: string | null = null): AuditIntent {
    return { actor: this.#operator.actor, source: this.#operator.source, action, queue: this.name, target };
  }

  #record(action: AuditAction, count: number, target: string | null = null, names?: readonly string[]): Promise<void> {
    return this.#ctx.store.recordAudit({ ...this.#intent(action, target), count, ...(names ? { names } : {}) });
  }

  /** Task names only: anything else (markup, 600 characters) is refused before it reaches the store or the log. */
  #requireNames(names: readonly string[], method: string): void {
    if (!Array.isArray(names) || names.some((name) => typeof name !== 'string' || !TASK_NAME_PATTERN.test(name))) {
      throw new QueueError('INVALID_TASK_NAME', `${method} takes task names (letters, digits, _ and -; 1 to 500)`, {
        queue: this.name,
      });
    }
  }
}
