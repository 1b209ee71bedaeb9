import type { QueueAcl } from '../core/queue-config.js';
import type { QueueAction } from './access-control.js';

/**
 * The queue.xml `<acl>` rule, as the App Engine SDK's TaskQueueAcl defines
 * it and issue 4 restates it:
 * - `<writer-email>` may insert tasks;
 * - `<user-email>` may lease, get, list, update, patch and delete them;
 * - either may read the queue itself (taskqueues.get), since both need its
 *   statistics; only administrators see the `acl` inside it;
 * - `queue.admin` (operator actions) is never granted by an ACL: only
 *   project administrators may pause, purge or redrive;
 * - nobody else (the REST API's "a user has no rights on a TaskQueue unless
 *   they are explicitly granted rights").
 *
 * E-mail addresses compare case-insensitively: identity providers differ in
 * how they case the `email` claim, and no two real mailboxes differ only by
 * case in practice.
 */
export function aclAllows(acl: QueueAcl, email: string, action: QueueAction): boolean {
  const isUser = containsEmail(acl.userEmails, email);
  const isWriter = containsEmail(acl.writerEmails, email);
  switch (action) {
    case 'task.insert':
      return isWriter;
    case 'queue.get':
      return isUser || isWriter;
    case 'task.lease':
    case 'task.get':
    case 'task.list':
    case 'task.update':
    case 'task.delete':
      return isUser;
    case 'queue.admin':
      // Administrators pass before the ACL is consulted; an ACL grants no operator action.
      return false;
  }
}

/** Whether `emails` holds `email`, ignoring case. */
export function containsEmail(emails: readonly string[], email: string): boolean {
  const wanted = normalizeEmail(email);
  return emails.some((entry) => normalizeEmail(entry) === wanted);
}

/** The form e-mail addresses are compared in. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
