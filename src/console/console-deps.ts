import type { AccessControl } from '../auth/access-control.js';
import type { AuditLog, Operator } from '../core/audit-log.js';
import type { CronFiringEntry } from '../core/cron/cron-history.js';
import type { CronFiring } from '../core/cron/cron-scheduler.js';
import type { CronJobStatus } from '../core/cron/cron-service.js';
import type { DepthHistory } from '../core/depth-history.js';
import type { QueueConfig } from '../core/queue-config.js';
import type { QueueOperations } from '../core/queue-operations.js';
import type { QueueAttention } from '../core/queue-attention.js';
import type { QueueOverview } from '../core/queue-overview.js';
import type { TriageThresholds } from '../core/triage-thresholds.js';
import type { TaskQueue } from '../core/task-queue.js';
import type { OverviewSampler } from './overview-sampler.js';

/** What the console uses of the service (TaskQueueService, or what openTaskQueue resolves to). */
export interface ConsoleService {
  queues(): QueueConfig[];
  getQueue(name: string): TaskQueue;
  /** Reads and actions go through the operator API, which records the actions in the audit log. */
  operate(name: string, operator: Operator): QueueOperations;
  overview(names?: readonly string[]): Promise<QueueOverview[]>;
  /** Failing push deliveries and dead letters arriving, for the triage of the queues page. */
  attention(names: readonly string[], options: { readonly deadLetterSeconds: number }): Promise<QueueAttention[]>;
}

/** What `mountConsole` needs. */
export interface ConsoleDeps {
  /** The service whose core the pages read and the actions call (never REST over HTTP). */
  readonly service: ConsoleService;
  /** The same access control REST uses; default OPEN_ACCESS (access control off: everyone is an administrator). */
  readonly accessControl?: AccessControl;
  /** What the audit page lists (the core records the actions itself: TaskQueueService.operate). */
  readonly auditLog: Pick<AuditLog, 'list'>;
  /** Where the depth chart's samples are kept (sql/0013); without it, in this process's memory. */
  readonly depthHistory?: DepthHistory;
  /** Seconds between samples of the overview for the charts (default 10). */
  readonly sampleIntervalSeconds?: number;
  /** Default seconds between refreshes of a page's figures and charts in the browser (default 5). */
  readonly refreshSeconds?: number;
  /** The cron jobs for the cron page (the service's `cronJobs`); without it the page lists none. */
  readonly cronJobs?: () => Promise<CronJobStatus[]>;
  /** A job's firings with their outcomes, and run-now (the service's `cronHistory` and `runCronJob`); without it the cron page has neither. */
  readonly cron?: ConsoleCron;
  /** What the queues page flags and ranks first (TASKQUEUE_CONSOLE_TRIAGE); default DEFAULT_TRIAGE_THRESHOLDS. */
  readonly triage?: TriageThresholds;
}

/** What the cron pages ask of the service beyond the list. */
export interface ConsoleCron {
  history(name: string, limit: number): Promise<CronFiringEntry[]>;
  /** Fires the job now; the service records it through `operate()` as `operator`. */
  run(name: string, operator: Operator): Promise<CronFiring>;
}

/** The deps with defaults filled in, plus the sampler: what every console route works with. */
export interface ConsoleContext {
  readonly service: ConsoleService;
  readonly accessControl: AccessControl;
  readonly auditLog: Pick<AuditLog, 'list'>;
  readonly sampler: OverviewSampler;
  readonly refreshSeconds: number;
  readonly cronJobs: (() => Promise<CronJobStatus[]>) | null;
  readonly cron: ConsoleCron | null;
  readonly triage: TriageThresholds;
}
