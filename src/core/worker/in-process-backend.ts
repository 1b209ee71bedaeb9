import { isQueueError } from '../errors.js';
import type { Task } from '../task.js';
import type { TaskQueue } from '../task-queue.js';
import type { HeldLease, WorkerBackend, WorkerErrorKind, WorkerLeaseRequest } from './worker-backend.js';

/** The worker runner's calls on a TaskQueue of this process. */
export class InProcessBackend implements WorkerBackend<Task> {
  readonly #queue: TaskQueue;

  constructor(queue: TaskQueue) {
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
    if (isQueueError(error, 'TASK_LEASE_EXPIRED') || isQueueError(error, 'UNKNOWN_TASK') || isQueueError(error, 'TOMBSTONED_TASK')) {
      return 'lease-lost';
    }
    if (isQueueError(error, 'QUEUE_PAUSED')) return 'paused';
    if (isQueueError(error) && error.retryable) return 'unavailable';
    return 'error';
  }
}
