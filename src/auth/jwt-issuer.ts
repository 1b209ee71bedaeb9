import { createLocalJWKSet, createRemoteJWKSet, customFetch, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { cappedFetch, type FetchFunction } from './capped-fetch.js';
import type { JwtIssuerSettings } from './jwt-issuer-settings.js';
import { tokenFailure } from './token-failure.js';
import { identityFromClaims, type VerifiedIdentity } from './verified-identity.js';

/** A trusted issuer of JWT access tokens: verifies the tokens whose `iss` it owns. */
export interface JwtIssuer {
  /** The exact `iss` value this issuer's tokens carry. */
  readonly issuer: string;
  /** Verifies a token (signature, alg, iss, aud, exp, nbf, typ) and returns its identity; throws 401/503 QueueErrors. */
  verify(token: string): Promise<VerifiedIdentity>;
}

export interface JwtIssuerDeps {
  /** Scope aliases (short name → URL). */
  readonly scopeAliases: Readonly<Record<string, string>>;
  /** The fetch used for the JWKS (default: the global fetch). */
  readonly fetch?: FetchFunction;
}

/**
 * A configured issuer, verified with jose (libraries-evaluated §5: jose
 * 6.2.17 passed every check; hono/jwk fetches the JWKS on every request).
 *
 * - Keys: a remote JWKS through `createRemoteJWKSet`, which caches the set
 *   for `cacheMaxAge` and refetches on an unknown `kid` at most once per
 *   `cooldownDuration`, so a flood of made-up `kid`s costs the identity
 *   provider one request per cooldown; or static keys through
 *   `createLocalJWKSet`. Headers that point elsewhere (`jku`, `x5u`, `jwk`)
 *   are never followed (RFC 8725 §3.10): only our key set is consulted.
 * - `algorithms` is the issuer's allow-list, so `alg: none` and HS256 (with
 *   the public key as the secret) fail before any key is used.
 * - `exp` is required; `nbf` and `exp` get the configured clock tolerance.
 */
export function createJwtIssuer(settings: JwtIssuerSettings, deps: JwtIssuerDeps): JwtIssuer {
  const keys = keyResolver(settings, deps.fetch ?? fetch);
  const options = {
    issuer: settings.issuer,
    audience: [...settings.audiences],
    algorithms: [...settings.algorithms],
    clockTolerance: settings.clockToleranceSeconds,
    requiredClaims: ['exp'],
    ...(settings.typ === null ? {} : { typ: settings.typ }),
  };
  return {
    issuer: settings.issuer,
    async verify(token) {
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(token, keys, options));
      } catch (error) {
        throw tokenFailure(error);
      }
      return identityFromClaims(payload, settings.issuer, deps.scopeAliases);
    },
  };
}

function keyResolver(settings: JwtIssuerSettings, fetchImpl: FetchFunction): JWTVerifyGetKey {
  const source = settings.keys;
  if (source.kind === 'static') return createLocalJWKSet({ keys: [...source.keys] });
  return createRemoteJWKSet(new URL(source.url), {
    cacheMaxAge: source.cacheMaxAgeMs,
    cooldownDuration: source.cooldownMs,
    timeoutDuration: source.timeoutMs,
    [customFetch]: failFastAfterFailure(cappedFetch(fetchImpl), Math.min(source.cooldownMs, 5000)),
  });
}

/**
 * jose retries a failed JWKS fetch on the very next request: while the
 * identity provider is down, every request with an uncached key would wait
 * out a full timeout against it. After a failure, fetches fail at once for
 * `backoffMs`, so a dead provider costs one timeout per backoff, not one per
 * request.
 */
function failFastAfterFailure(fetchImpl: FetchFunction, backoffMs: number): FetchFunction {
  let failedAt = Number.NEGATIVE_INFINITY;
  return async (input, init) => {
    if (Date.now() - failedAt < backoffMs) throw new Error('the JWKS endpoint failed moments ago');
    try {
      const response = await fetchImpl(input, init);
      if (response.status !== 200) failedAt = Date.now();
      return response;
    } catch (error) {
      failedAt = Date.now();
      throw error;
    }
  };
}
