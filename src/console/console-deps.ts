import type { AccessControl } from '../auth/access-control.js';
import type { AuditLog } from '../core/audit-log.js';
import type { DepthHistory } from '../core/depth-history.js';
import type { TaskQueueService } from '../core/task-queue-service.js';
import type { OverviewSampler } from './overview-sampler.js';

/** What `mountConsole` needs. */
export interface ConsoleDeps {
  /** The service whose core the pages read and the actions call (never REST over HTTP). */
  readonly service: TaskQueueService;
  /** The same access control REST uses; default OPEN_ACCESS (access control off: everyone is an administrator). */
  readonly accessControl?: AccessControl;
  /** Where actions are recorded, and the audit page reads. */
  readonly auditLog: AuditLog;
  /** Where the depth chart's samples are kept (sql/0014); without it, in this process's memory. */
  readonly depthHistory?: DepthHistory;
  /** Seconds between samples of the overview for the charts (default 10). */
  readonly sampleIntervalSeconds?: number;
  /** Default seconds between refreshes of a page's figures and charts in the browser (default 5). */
  readonly refreshSeconds?: number;
}

/** The deps with defaults filled in, plus the sampler: what every console route works with. */
export interface ConsoleContext {
  readonly service: TaskQueueService;
  readonly accessControl: AccessControl;
  readonly auditLog: AuditLog;
  readonly sampler: OverviewSampler;
  readonly refreshSeconds: number;
}
