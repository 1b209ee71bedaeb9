import type { AuditAction } from '../../core/audit-log.js';
import type { RestCall } from '../rest-handler.js';

/**
 * Records an operator route's action in the audit log (source `rest`), as
 * the console records its own: the caller's verified e-mail, or
 * `anonymous` with access control off.
 */
export async function recordAudit(call: RestCall, action: AuditAction, count: number): Promise<void> {
  await call.deps.service.auditLog?.record({
    actor: call.decision.principal?.email ?? 'anonymous',
    action,
    queue: call.queue.name,
    count,
    source: 'rest',
  });
}
