import { decodeJwt } from 'jose';
import { invalidToken } from './auth-errors.js';
import type { JwtIssuer } from './jwt-issuer.js';
import type { VerifiedIdentity } from './verified-identity.js';

/** Turns a bearer token into a verified identity, or throws 401 (bad token) / 503 (could not check). */
export interface TokenVerifier {
  verify(token: string): Promise<VerifiedIdentity>;
}

/** Something that checks opaque tokens (RFC 7662 introspection). */
export interface OpaqueTokenVerifier {
  verify(token: string): Promise<VerifiedIdentity>;
}

/**
 * Routes each token to the one verifier that may judge it:
 * - a JWT whose (not yet verified) `iss` is a trusted issuer goes to that
 *   issuer alone, which checks `iss` again with the signature, so the
 *   unverified read only picks the key set (RFC 8725 §3.8 binds iss to its
 *   keys);
 * - anything else (opaque tokens, JWTs of other issuers) goes to
 *   introspection when it is configured;
 * - otherwise the token is refused: 401 invalid_token.
 */
export function createTokenVerifier(
  issuers: readonly JwtIssuer[],
  introspection: OpaqueTokenVerifier | null,
): TokenVerifier {
  const byIssuer = new Map(issuers.map((issuer) => [issuer.issuer, issuer]));
  return {
    async verify(token) {
      const iss = unverifiedIssuer(token);
      const issuer = iss === undefined ? undefined : byIssuer.get(iss);
      if (issuer !== undefined) return issuer.verify(token);
      if (introspection !== null) return introspection.verify(token);
      throw invalidToken(
        iss === undefined
          ? 'the token is not a JWT of a trusted issuer'
          : 'the token was not issued by a trusted issuer',
      );
    },
  };
}

/** The `iss` of a compact JWS, read without verifying anything; undefined when the token is not one. */
function unverifiedIssuer(token: string): string | undefined {
  if (token.split('.').length !== 3) return undefined;
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}
