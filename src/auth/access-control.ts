import type { QueueConfig } from '../core/queue-config.js';

/**
 * The seam between the REST layer and authentication/authorisation. The
 * HTTP layer collects the credentials of a request and asks an
 * AccessControl whether the caller may perform an action on a queue; it
 * knows nothing of tokens, issuers or ACL rules. In-process calls never pass
 * through here: they are credential-free.
 */

/** What a REST method does to a queue, for the ACL. */
export type QueueAction =
  | 'queue.get' // taskqueues.get
  | 'task.insert' // tasks.insert: writer-email
  | 'task.lease' // the rest: user-email
  | 'task.get'
  | 'task.list'
  | 'task.update'
  | 'task.delete'
  // Operator actions (pause, resume, purge, redrive, the console's actions,
  // a token-protected /metrics): project administrators only, never an ACL.
  | 'queue.admin';

/** The credentials a request carries, as sent (not yet verified). */
export interface RequestCredentials {
  /** The Authorization header, verbatim. */
  readonly authorization: string | undefined;
  /** The discovery document's `oauth_token` query parameter. */
  readonly oauthToken: string | undefined;
  /** The `key` query parameter (API key: identifies the application, grants nothing). */
  readonly apiKey: string | undefined;
}

/** Who the caller is, once verified. */
export interface Principal {
  /** The verified e-mail of the caller. */
  readonly email: string;
  /** Granted scopes (full URLs). */
  readonly scopes: readonly string[];
  /** The application an API key identified, if any. */
  readonly application?: string;
  /** When the caller's token stops being valid, in epoch ms (null when it did not say). The console's session ends then. */
  readonly expiresAt?: number | null;
}

export interface AccessDecision {
  /** Null only when access control is switched off. */
  readonly principal: Principal | null;
  /** Whether the caller may see the queue's ACL in taskqueues.get (project administrators only). */
  readonly mayReadAcl: boolean;
}

export interface AccessControl {
  /**
   * Authenticates the credentials and authorises `action` on `queue`
   * (`null` when the path names a queue that is not configured: only
   * administrators learn that it does not exist; everyone else is refused as
   * for any queue they may not use).
   *
   * Throws QueueError UNAUTHENTICATED (HTTP 401) or PERMISSION_DENIED (403);
   * `details.wwwAuthenticate` then holds the WWW-Authenticate header value
   * the response must carry (RFC 6750).
   */
  check(credentials: RequestCredentials, queue: QueueConfig | null, action: QueueAction): Promise<AccessDecision>;
}

/** Access control switched off (an explicit setting; the server warns about it at start-up). */
export const OPEN_ACCESS: AccessControl = {
  async check() {
    return { principal: null, mayReadAcl: true };
  },
};
