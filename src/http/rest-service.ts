import type { AuditLog } from '../core/audit-log.js';
import type { TaskQueueService } from '../core/task-queue-service.js';

/**
 * What the REST shell needs of the service: the core's TaskQueueService,
 * plus the project id its paths name and which engine runs (for /healthz).
 * `openTaskQueue()` resolves to one; http names this interface instead of
 * importing the wiring module.
 */
export interface RestService extends TaskQueueService {
  readonly project: string;
  readonly engine: string;
  /** Where the operator routes record pause, resume, purge and redrive (openTaskQueue's has one); absent: nowhere. */
  readonly auditLog?: AuditLog;
}
