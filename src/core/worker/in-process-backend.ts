import { isQueueError } from '../errors.js';
import type { Task } from '../task.js';
import type { HeldLease, WorkerBackend, WorkerErrorKind, WorkerLeaseRequest } from './worker-backend.js';

type LeaseRef = Pick<Task, 'name' | 'etaUsec'>;

/** The part of a TaskQueue the runner calls (described by shape: task-queue.ts imports the runner). */
export interface InProcessQueue {
  readonly name: string;
  leaseTasks(options: {
    lease: number;
    maxTasks: number;
    tag?: string;
    groupByTag?: boolean;
    waitMs?: number;
    signal?: AbortSignal;
  }): Promise<Task[]>;
  modifyTaskLease(task: LeaseRef, lease: number): Promise<Task>;
  deleteLeasedTasks(tasks: readonly LeaseRef[]): Promise<boolean[]>;
  failTask(task: LeaseRef & Pick<Task, 'retryCount'>, error: unknown): Promise<Task>;
}

/** The worker runner's calls on a TaskQueue of this process. */
export class InProcessBackend implements WorkerBackend<Task> {
  readonly #queue: InProcessQueue;

  constructor(queue: InProcessQueue) {
    this.#queue = queue;
  }

  get queueName(): string {
    return this.#queue.name;
  }

  lease(request: WorkerLeaseRequest): Promise<Task[]> {
    return this.#queue.leaseTasks({
      lease: request.leaseSeconds,
      maxTasks: request.maxTasks,
      ...(request.tag === undefined ? {} : { tag: request.tag }),
      groupByTag: request.groupByTag,
      waitMs: request.waitMs,
      signal: request.signal,
    });
  }

  async renew(held: HeldLease<Task>, leaseSeconds: number): Promise<number> {
    const task = await this.#queue.modifyTaskLease({ name: held.task.name, etaUsec: held.token }, leaseSeconds);
    return task.etaUsec;
  }

  complete(held: readonly HeldLease<Task>[]): Promise<boolean[]> {
    return this.#queue.deleteLeasedTasks(held.map((h) => ({ name: h.task.name, etaUsec: h.token })));
  }

  async fail(held: HeldLease<Task>, error: unknown): Promise<void> {
    await this.#queue.failTask({ name: held.task.name, etaUsec: held.token, retryCount: held.task.retryCount }, error);
  }

  async release(held: HeldLease<Task>): Promise<void> {
    await this.#queue.modifyTaskLease({ name: held.task.name, etaUsec: held.token }, 0);
  }

  classify(error: unknown): WorkerErrorKind {
    if (
      isQueueError(error, 'TASK_LEASE_EXPIRED') ||
      isQueueError(error, 'UNKNOWN_TASK') ||
      isQueueError(error, 'TOMBSTONED_TASK')
    ) {
      return 'lease-lost';
    }
    if (isQueueError(error, 'QUEUE_PAUSED')) return 'paused';
    if (isQueueError(error) && error.retryable) return 'unavailable';
    return 'error';
  }
}
