import type { Task } from '../task.js';
import { validateTag } from '../validate-tag.js';
import { InProcessBackend, type InProcessQueue } from './in-process-backend.js';
import { TaskWorker, type TaskHandler } from './task-worker.js';
import type { WorkerMetrics } from './worker-events.js';
import { resolveWorkerOptions, type WorkerOptions } from './worker-options.js';

export type { TaskHandler, TaskWorker, WorkerOptions };

/**
 * The workers one queue runs in this process (`queue.work`), kept so that
 * closing the service stops them: a worker leaves the set once stopped.
 */
export class QueueWorkers {
  readonly #running = new Set<TaskWorker<Task>>();

  /** Checks the options and starts a worker on `queue`; `maxWaitMs` bounds its long-poll. */
  start(
    queue: InProcessQueue,
    handler: TaskHandler<Task>,
    options: WorkerOptions,
    limits: { readonly maxWaitMs: number },
    metrics: WorkerMetrics | undefined,
  ): TaskWorker<Task> {
    const resolved = resolveWorkerOptions(options, queue.name, limits);
    if (resolved.tag !== undefined) validateTag(resolved.tag, { queue: queue.name, field: 'tag' });
    const worker = new TaskWorker(new InProcessBackend(queue), handler, resolved, metrics);
    this.#running.add(worker);
    worker.on('state', (state) => {
      if (state === 'stopped') this.#running.delete(worker);
    });
    return worker;
  }

  /** Stops every running worker (see TaskWorker.stop): each drains within its grace and releases what it holds. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#running].map((worker) => worker.stop()));
  }
}
