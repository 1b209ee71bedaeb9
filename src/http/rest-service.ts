import type { Operator } from '../core/audit-log.js';
import type { CronFiringEntry } from '../core/cron/cron-history.js';
import type { CronFiring } from '../core/cron/cron-scheduler.js';
import type { CronJobStatus } from '../core/cron/cron-service.js';
import type { ServiceConfig, QueueConfig } from '../core/queue-config.js';
import type { QueueOperations } from '../core/queue-operations.js';
import type { QueueOverview } from '../core/queue-overview.js';
import type { TaskQueue } from '../core/task-queue.js';

/**
 * What the REST shell uses of the service: the core's TaskQueueService
 * (queue handles, the operator API, the overview, a database round trip),
 * plus the project id its paths name and which engine runs (for /healthz).
 * `openTaskQueue()` resolves to one; http names this interface instead of
 * importing the wiring module.
 */
export interface RestService {
  readonly project: string;
  readonly engine: string;
  readonly config: ServiceConfig;
  queues(): QueueConfig[];
  getQueue(name: string): TaskQueue;
  /** The operator API, acting as `operator`: the admin routes' actions are audited by it. */
  operate(name: string, operator: Operator): QueueOperations;
  overview(names?: readonly string[]): Promise<QueueOverview[]>;
  /** Every cron job the servers recorded (the cron admin routes). */
  cronJobs(): Promise<CronJobStatus[]>;
  /** A job's latest firings with their outcomes. */
  cronHistory(name: string, limit?: number): Promise<CronFiringEntry[]>;
  /** Fires a recorded cron job now, once, audited as `operator`. */
  runCronJob(name: string, operator: Operator): Promise<CronFiring>;
  /** A round trip to the database (health and readiness). */
  ping(): Promise<void>;
  /** Makes a queue through the Cloud Tasks API, audited as `operator` (core/api-queues.ts). */
  createQueue(queue: QueueConfig, operator: Operator): Promise<QueueConfig>;
  /** Replaces an API-made queue's settings; a file's queue is refused (its file owns it). */
  updateQueue(queue: QueueConfig, operator: Operator): Promise<QueueConfig>;
  /** Deletes an API-made queue: its name is held, its tasks purged. */
  deleteQueue(name: string, operator: Operator): Promise<void>;
}
