import type { AuditAction } from '../core/audit-log.js';

/** Audit actions in an operator's words (the stored names are identifiers: `delete_dead_letters`). */
const AUDIT_LABELS: Partial<Record<AuditAction, string>> = {
  pause: 'pause',
  resume: 'resume',
  purge: 'purge',
  delete_task: 'delete tasks',
  release_lease: 'release leases',
  redrive: 'redrive dead letters',
  delete_dead_letters: 'delete dead letters',
  import_tasks: 'import tasks',
  export_tasks: 'export tasks',
  cron_run: 'run cron job',
  create_queue: 'create queue',
  update_queue: 'change queue',
  delete_queue: 'delete queue',
};

/** An action's label; one without its own, its name with spaces. */
export function auditLabel(action: AuditAction): string {
  return AUDIT_LABELS[action] ?? action.replaceAll('_', ' ');
}
