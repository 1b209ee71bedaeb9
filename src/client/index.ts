/**
 * `taskqueue/client`: the REST client and its worker runner, for consumers
 * outside the hosting application. Nothing here imports a database driver,
 * Kysely or Hono (test/client/client-bundle.test.ts checks the bundle).
 */
export { TaskQueueClient, QueueClient } from './task-queue-client.js';
export type { TaskQueueClientOptions, NewClientTask } from './task-queue-client.js';
export type { ClientLeaseOptions, ClientQueueInfo } from './queue-calls.js';
export { TaskQueueApiError } from './client-errors.js';
export type { ClientTask } from './client-task.js';
export type { TaskWorker, TaskHandler, HandlerContext } from '../core/worker/task-worker.js';
export type { WorkerOptions } from '../core/worker/worker-options.js';
export type { WorkerEventMap, WorkerState } from '../core/worker/worker-events.js';
export { LeaseLostError, WorkerStoppedError } from '../core/worker/worker-errors.js';
