import type { RunNowSelection, TaskAttempt } from '../core/task-attempt.js';
import { deadLetterRecord } from '../core/dead-letter.js';
import { isQueueError, QueueError } from '../core/errors.js';
import { maskHeaders } from '../core/push/mask-headers.js';
import type { Operator } from '../core/audit-log.js';
import type { QueueOverview } from '../core/queue-overview.js';
import type { Task, TaskOptions } from '../core/task.js';
import type { TaskSearch } from '../core/task-search.js';
import type { TaskHandler } from '../core/worker/task-worker.js';
import type { WorkerOptions } from '../core/worker/worker-options.js';
import type { DatabaseOptions } from '../store/engine/database.js';
import { openForOperators, type OpenTaskQueue, type WiringOptions } from '../open-task-queue.js';
import type {
  CronJobView,
  DeadLetterRecord,
  ExportLine,
  LeaseRequest,
  NewTaskRecord,
  OperatorClient,
  RunningWorker,
  SearchResult,
  TaskDetail,
  TaskRecord,
  WorkTask,
} from './operator-client.js';

/** A task as the CLI prints it. */
export function taskRecord(task: Task): TaskRecord {
  return {
    name: task.name,
    queue: task.queueName,
    tag: task.tag,
    retryCount: task.retryCount,
    etaUsec: task.etaUsec,
    enqueuedUsec: task.enqueuedUsec,
    lastError: task.lastError ?? null,
    payloadBase64: task.payload.toString('base64'),
  };
}

/**
 * The operator commands straight on the database, through the same core as
 * the servers: the operator API (`service.operate`) does each action and
 * records it in the audit log (source `cli`). The queues are those the
 * servers wrote to the database, unless the command was given the
 * configuration (openForOperators).
 */
export class DatabaseClient implements OperatorClient {
  readonly target: string;
  readonly #service: OpenTaskQueue;
  readonly #operator: Operator;

  private constructor(service: OpenTaskQueue, operator: Operator, target: string) {
    this.#service = service;
    this.#operator = operator;
    this.target = target;
  }

  /**
   * Opens the database (see openForOperators). `actor` is who the audit log
   * names for this run's operator actions (the CLI has no verified
   * identity: `cli:` and the login name).
   */
  static async open(
    database: DatabaseOptions,
    options: Pick<WiringOptions, 'schema' | 'config' | 'env'>,
    actor = 'cli',
  ): Promise<DatabaseClient> {
    const service = await openForOperators({ ...options, database });
    return new DatabaseClient(
      service,
      { actor, source: 'cli' },
      service.engine === 'pglite' ? 'the embedded database' : 'PostgreSQL',
    );
  }

  queues(): Promise<QueueOverview[]> {
    return this.#service.overview();
  }

  /** The cron jobs the servers recorded (`taskqueue cron list`). */
  async cronJobs(): Promise<CronJobView[]> {
    return (await this.#service.cronJobs()).map(({ job: _definition, ...shown }) => shown);
  }

  /** A job's latest firings with their outcomes (`taskqueue cron history`). */
  cronHistory(name: string, limit: number): ReturnType<OpenTaskQueue['cronHistory']> {
    return this.#service.cronHistory(name, limit);
  }

  /** Fires a recorded cron job now, once (`taskqueue cron run`). */
  runCronJob(name: string): ReturnType<OpenTaskQueue['runCronJob']> {
    return this.#service.runCronJob(name, this.#operator);
  }

  async stats(queue: string): Promise<QueueOverview> {
    this.#service.getQueue(queue); // UNKNOWN_QUEUE for a queue the database does not define
    const [row] = await this.#service.overview([queue]);
    if (!row) throw new QueueError('UNKNOWN_QUEUE', `queue "${queue}" is not defined in the database`, { queue });
    return row;
  }

  work(queue: string, handler: TaskHandler<WorkTask>, options: WorkerOptions): RunningWorker {
    return this.#service.getQueue(queue).work(handler, options);
  }

  async get(queue: string, name: string): Promise<TaskDetail> {
    const task = await this.#service.getQueue(queue).getTask(name);
    const push = task.push;
    if (!push) return taskRecord(task);
    return {
      ...taskRecord(task),
      push: {
        url: push.url,
        method: push.method,
        headers: maskHeaders(push.headers),
        dispatchDeadlineSeconds: push.deadlineSeconds,
      },
    };
  }

  async add(queue: string, task: NewTaskRecord): Promise<TaskRecord> {
    const { method, ...rest } = task;
    return taskRecord(
      await this.#service
        .getQueue(queue)
        .add({ ...rest, ...(method === undefined ? {} : { method: method as TaskOptions['method'] }) }),
    );
  }

  async lease(queue: string, request: LeaseRequest): Promise<TaskRecord[]> {
    try {
      const tasks = await this.#service.getQueue(queue).leaseTasks({
        lease: request.leaseSecs,
        unit: 'seconds',
        maxTasks: request.numTasks,
        ...(request.tag === undefined ? {} : { tag: request.tag }),
      });
      return tasks.map(taskRecord);
    } catch (error) {
      // As over REST: a paused queue leases nothing.
      if (isQueueError(error, 'QUEUE_PAUSED')) return [];
      throw error;
    }
  }

  delete(queue: string, names: readonly string[]): Promise<boolean[]> {
    return this.#operate(queue).deleteTasks(names);
  }

  purge(queue: string): Promise<number> {
    return this.#operate(queue).purge();
  }

  setPaused(queue: string, paused: boolean): Promise<void> {
    const operations = this.#operate(queue);
    return paused ? operations.pause() : operations.resume();
  }

  async *deadLetters(queue: string): AsyncIterable<DeadLetterRecord[]> {
    for await (const page of this.#operate(queue).deadLetters()) yield page.map(deadLetterRecord);
  }

  redrive(queue: string, names?: readonly string[]): Promise<number> {
    return this.#operate(queue).redrive(names);
  }

  async runNow(queue: string, selection: RunNowSelection): Promise<number> {
    return (await this.#operate(queue).runNow(selection)).count;
  }

  attempts(queue: string, name: string): Promise<TaskAttempt[]> {
    return this.#operate(queue).attempts(name);
  }

  /** A search is a read: the queue's handle does it, and nothing is recorded. */
  async search(queue: string, search: TaskSearch): Promise<SearchResult> {
    const page = await this.#service.getQueue(queue).searchTasks(search);
    return { ...page, tasks: page.tasks.map(taskRecord) };
  }

  exportTasks(queue: string): AsyncIterable<ExportLine[]> {
    return this.#operate(queue).exportTasks();
  }

  importTasks(queue: string, lines: readonly ExportLine[]): Promise<number> {
    return this.#operate(queue).importTasks(lines);
  }

  close(): Promise<void> {
    return this.#service.close();
  }

  #operate(queue: string) {
    return this.#service.operate(queue, this.#operator);
  }
}
