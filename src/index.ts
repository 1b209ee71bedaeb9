/**
 * taskqueue: a PostgreSQL-native pull task queue, compatible with the App
 * Engine Task Queue (pull queues and REST v1beta2). This is the in-process
 * API for a hosting Node application.
 */
import { environment } from './environment.js';
import { openTaskQueue as open, type OpenTaskQueue, type OpenTaskQueueOptions } from './open-task-queue.js';

/**
 * Opens the service in this process. Options default to the environment
 * (DATABASE_URL, TASKQUEUE_CONFIG, TASKQUEUE_PROJECT, TASKQUEUE_DATA_DIR).
 */
export function openTaskQueue(options: OpenTaskQueueOptions = {}): Promise<OpenTaskQueue> {
  return open(options, environment());
}

export type { OpenTaskQueue, OpenTaskQueueOptions } from './open-task-queue.js';
// Classes as types only: they are made by openTaskQueue (their constructors take the store, which is not public).
export type { TaskQueue, AddOptions, LeaseOptions, TaskLeaseRef } from './core/task-queue.js';
export type { QueueOperations, DeadLetterListOptions } from './core/queue-operations.js';
export type { BrowseOptions } from './core/browse-tasks.js';
export type { SearchState, TaskSearch, TaskSearchFilter, TaskSearchPage } from './core/task-search.js';
export type { AuditAction, AuditEntry, AuditListOptions, AuditLog, NewAuditEntry, Operator } from './core/audit-log.js';
export type { ExportLine } from './core/task-export.js';
export type { Logger } from './core/logger.js';
export type { PoolStats } from './core/pool-stats.js';
export type { AuthStore } from './auth/auth-store.js';
export {
  pushKeysHandler,
  pushTokenJwks,
  type PushKeySource,
  type PushKeysHandlerOptions,
} from './auth/push-key-endpoints.js';
export type { CallerTransaction, KyselyTransaction, PgClientTransaction } from './core/caller-transaction.js';
export type { DeadLetter, DeadLetterRef } from './core/dead-letter.js';
export type { QueueOverview } from './core/queue-overview.js';
export type { Tombstone, TombstoneReason } from './core/tombstone.js';
export type { LeaseCount, QueueStats, TaskState } from './core/task-store.js';
export { noTaskEvents, type TaskEvents } from './core/task-events.js';
export type { Task, TaskOptions } from './core/task.js';
export { usecToDate } from './core/task.js';
export type { TimeUnit } from './core/time-unit.js';
export { QueueError, isQueueError, ERROR_CODES, type ErrorCode } from './core/errors.js';
export type { QueueConfig, ServiceConfig, LeaseRate, QueueAcl } from './core/queue-config.js';
export { LIMITS } from './core/limits.js';
export { loadConfigFile, parseConfigText, builtInConfig } from './config/load-config.js';
export type { TaskWorker, TaskHandler, HandlerContext } from './core/worker/task-worker.js';
export type { WorkerOptions } from './core/worker/worker-options.js';
export type { WorkerEventMap, WorkerMetrics, WorkerState } from './core/worker/worker-events.js';
export { LeaseLostError, WorkerStoppedError } from './core/worker/worker-errors.js';
