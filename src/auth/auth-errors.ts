import { QueueError } from '../core/errors.js';

/**
 * The QueueErrors access control raises, one constructor per RFC 6750 case.
 * Each carries, in `details`:
 * - `wwwAuthenticate`: the WWW-Authenticate header value the response must
 *   carry (absent for a plain ACL refusal, where the token itself is fine);
 * - `reason`: the `errors[].reason` of Google's error envelope (`required`,
 *   `authError`, `insufficientPermissions`, `forbidden`, `keyInvalid`,
 *   `badRequest`), so the REST layer need not guess.
 *
 * Messages never contain the token, the API key, or whether a queue exists.
 */

/** The realm of every challenge. RFC 6750 §3: it may appear at most once. */
export const REALM = 'taskqueue';

/** The bare challenge: no credentials were sent (RFC 6750 §3.1 says no error information then). */
export const BARE_CHALLENGE = `Bearer realm="${REALM}"`;

/** No bearer token at all: 401 with the bare challenge (Google: "Login Required"). */
export function missingCredentials(): QueueError {
  return new QueueError('UNAUTHENTICATED', 'Login Required', {
    wwwAuthenticate: BARE_CHALLENGE,
    reason: 'required',
    location: 'Authorization',
    locationType: 'header',
  });
}

/** The token is malformed, expired, revoked, or not ours: 401 `invalid_token` (Google: "Invalid Credentials"). */
export function invalidToken(description: string): QueueError {
  const text = challengeText(description);
  return new QueueError('UNAUTHENTICATED', `Invalid Credentials: ${text}`, {
    wwwAuthenticate: `${BARE_CHALLENGE}, error="invalid_token", error_description="${text}"`,
    description: text,
    reason: 'authError',
    location: 'Authorization',
    locationType: 'header',
  });
}

/**
 * The request itself is malformed (two ways of sending a token, a broken
 * Authorization header): RFC 6750 §3.1 `invalid_request`. The HTTP error
 * table must answer INVALID_REQUEST with 400; the header still goes out.
 */
export function invalidRequest(description: string): QueueError {
  const text = challengeText(description);
  return new QueueError('INVALID_REQUEST', text, {
    wwwAuthenticate: `${BARE_CHALLENGE}, error="invalid_request", error_description="${text}"`,
    reason: 'badRequest',
  });
}

/**
 * The token is good but carries none of the scopes the method needs: 403
 * `insufficient_scope`, naming the scopes that would do (Google:
 * "Insufficient Permission").
 */
export function insufficientScope(acceptedScopes: readonly string[]): QueueError {
  return new QueueError('PERMISSION_DENIED', 'Request had insufficient authentication scopes.', {
    wwwAuthenticate: `${BARE_CHALLENGE}, error="insufficient_scope", scope="${acceptedScopes.join(' ')}"`,
    reason: 'insufficientPermissions',
    scopes: [...acceptedScopes],
  });
}

/**
 * A known caller outside the queue's ACL, or any non-administrator naming a
 * queue that is not configured. The two answers are identical on purpose
 * (the message names neither the queue nor the caller), so queue names
 * cannot be probed.
 */
export function notPermitted(): QueueError {
  return new QueueError('PERMISSION_DENIED', 'The caller does not have permission', { reason: 'forbidden' });
}

/**
 * An API key that matches no configured key. Google answered such requests
 * with 400 `keyInvalid`; the HTTP table should map this INVALID_REQUEST to 400.
 */
export function invalidApiKey(): QueueError {
  return new QueueError('INVALID_REQUEST', 'API key not valid. Please pass a valid API key.', {
    reason: 'keyInvalid',
    location: 'key',
    locationType: 'parameter',
  });
}

/**
 * RFC 6750 §3: error_description is limited to %x20-21 / %x23-5B / %x5D-7E,
 * so quotes, backslashes and anything outside printable ASCII are dropped,
 * and the text is kept short.
 */
function challengeText(description: string): string {
  return description.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '').slice(0, 200);
}
