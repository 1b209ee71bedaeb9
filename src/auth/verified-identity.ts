import { isEmailAddress } from '../core/is-email-address.js';
import { invalidToken } from './auth-errors.js';
import { expandScopes } from './scopes.js';

/** What a verified token says about its bearer. */
export interface VerifiedIdentity {
  /** The verified e-mail: the key of every ACL. */
  readonly email: string;
  /** Granted scopes, aliases already replaced by full URLs. */
  readonly scopes: readonly string[];
  /** Who vouched for it (`iss`, or the introspection endpoint). */
  readonly issuer: string;
  /** When the token stops being valid, in epoch milliseconds (null when it did not say). */
  readonly expiresAt: number | null;
}

/**
 * The identity in a verified token's claims (a JWT payload, or an RFC 7662
 * introspection answer with its `username` mapped to `email`).
 *
 * The caller is the `email` claim, the way Google's tokeninfo identified the
 * users of this API; LUCI's guidance on tokeninfo is that a caller "MUST
 * check correctness of 'email', 'email_verified', 'scope' and 'aud'". So an
 * `email_verified` of false (or "false", as tokeninfo spelled it) refuses the
 * token, and a token without an e-mail identifies nobody.
 */
export function identityFromClaims(
  claims: Readonly<Record<string, unknown>>,
  issuer: string,
  aliases: Readonly<Record<string, string>>,
): VerifiedIdentity {
  const email = claims.email;
  if (typeof email !== 'string' || !isEmailAddress(email)) throw invalidToken('the token carries no e-mail address');
  if (claims.email_verified === false || claims.email_verified === 'false') {
    throw invalidToken('the e-mail address of the token is not verified');
  }
  const exp = claims.exp;
  return {
    email,
    scopes: expandScopes(claims.scope ?? claims.scp, aliases),
    issuer,
    expiresAt: typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : null,
  };
}
