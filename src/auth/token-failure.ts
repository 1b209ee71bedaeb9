import { isQueueError, QueueError } from '../core/errors.js';
import { invalidToken } from './auth-errors.js';
import { ResponseTooLargeError } from './capped-fetch.js';

/**
 * jose error codes that mean "this token is no good": 401 invalid_token.
 * Their messages name the failed check (`unexpected "aud" claim value`,
 * `"exp" claim timestamp check failed`) and never the token, so they become
 * the error_description.
 */
const TOKEN_FAULTS = new Set([
  'ERR_JWT_EXPIRED',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_INVALID',
  'ERR_JWS_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
  'ERR_JWK_INVALID',
  'ERR_JWE_INVALID',
]);

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'signature verification failed',
  ERR_JOSE_ALG_NOT_ALLOWED: 'the signing algorithm is not allowed',
  ERR_JOSE_NOT_SUPPORTED: 'the signing algorithm is not supported',
  ERR_JWKS_NO_MATCHING_KEY: 'no key of the issuer matches the token',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'several keys of the issuer match the token; it needs a kid',
};

/**
 * Turns a failed verification into the error the caller sees.
 *
 * A fault of the token is 401 invalid_token. A fault on our side of the
 * check (the JWKS endpoint timed out, answered junk or too much, the
 * database is down) is TRANSIENT_ERROR (503): the token may be fine, and
 * "try again later" is the honest answer, while access is never granted.
 */
export function tokenFailure(error: unknown): QueueError {
  if (isQueueError(error)) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && TOKEN_FAULTS.has(code)) {
    return invalidToken(DESCRIPTIONS[code] ?? (error as Error).message);
  }
  const why = error instanceof ResponseTooLargeError ? 'answered too much' : 'did not answer usably';
  return new QueueError(
    'TRANSIENT_ERROR',
    `the identity provider's keys could not be fetched (it ${why}); retry later`,
    {},
    {
      cause: error,
    },
  );
}
