import type { QueueConfig } from '../core/queue-config.js';
import type { AccessControl, AccessDecision, Principal, QueueAction, RequestCredentials } from './access-control.js';
import type { ApiKeyRegistry } from './api-keys.js';
import { missingCredentials, notPermitted } from './auth-errors.js';
import { bearerTokenOf } from './bearer-token.js';
import { aclAllows, normalizeEmail } from './queue-acl.js';
import { requireScope } from './scopes.js';
import type { TokenVerifier } from './token-verifier.js';

export interface TokenAccessControlParts {
  readonly verifier: TokenVerifier;
  readonly apiKeys: ApiKeyRegistry;
  /** Project administrators: TASKQUEUE_ADMINS plus queue.xml `<admin-email>`. */
  readonly admins: readonly string[];
}

/**
 * Access control by bearer token and queue ACL. The order of the checks is
 * the order of the answers a caller can get, and each one reveals no more
 * than the previous ones:
 *
 * 1. the request's credentials are well-formed (else 400 invalid_request);
 * 2. there is a token (else 401 with the bare challenge: an API key alone
 *    identifies an application, not a user, and grants nothing);
 * 3. the API key, when sent and keys are configured, is one of ours (400 keyInvalid);
 * 4. the token verifies and names a verified e-mail (401 invalid_token, or
 *    503 when the issuer could not be asked);
 * 5. its scopes allow the action (403 insufficient_scope), which does not
 *    depend on the queue;
 * 6. the caller is an administrator, or the queue exists and its ACL names
 *    the caller for the action (else the same 403 in both cases).
 */
export class TokenAccessControl implements AccessControl {
  readonly #verifier: TokenVerifier;
  readonly #apiKeys: ApiKeyRegistry;
  readonly #admins: ReadonlySet<string>;

  constructor(parts: TokenAccessControlParts) {
    this.#verifier = parts.verifier;
    this.#apiKeys = parts.apiKeys;
    this.#admins = new Set(parts.admins.map(normalizeEmail));
  }

  async check(
    credentials: RequestCredentials,
    queue: QueueConfig | null,
    action: QueueAction,
  ): Promise<AccessDecision> {
    const token = bearerTokenOf(credentials);
    if (token === null) throw missingCredentials();
    const application = this.#apiKeys.identify(credentials.apiKey);
    const identity = await this.#verifier.verify(token);
    requireScope(identity.scopes, action);
    const admin = this.#admins.has(normalizeEmail(identity.email));
    if (!admin && (queue === null || !aclAllows(queue.acl, identity.email, action))) throw notPermitted();
    const principal: Principal = {
      email: identity.email,
      scopes: identity.scopes,
      expiresAt: identity.expiresAt,
      ...(application === undefined ? {} : { application }),
    };
    return { principal, mayReadAcl: admin };
  }
}
