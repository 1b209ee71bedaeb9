import { randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import { invalidToken } from './auth-errors.js';
import { isEmailAddress } from '../core/is-email-address.js';
import { QueueError } from '../core/errors.js';
import type { ActiveSigningKey, AuthStore, NewSigningKey } from './auth-store.js';
import type { JwtIssuer } from './jwt-issuer.js';
import { LocalKeySet, type LocalKeySetOptions } from './local-key-set.js';
import { expandScopes, KNOWN_SCOPES, TASKQUEUE_SCOPE } from './scopes.js';
import { tokenFailure } from './token-failure.js';
import { identityFromClaims, type VerifiedIdentity } from './verified-identity.js';

/** Settings of the local issuer (TASKQUEUE_LOCAL_ISSUER_*). */
export interface LocalIssuerSettings {
  /** The `iss` of its tokens (default `urn:taskqueue:local`). */
  readonly issuer: string;
  /** The `aud` of its tokens (default `taskqueue`). */
  readonly audience: string;
  /** Lifetime of a token when the request names none (default 3600 s). */
  readonly defaultTtlSeconds: number;
  /** Longest lifetime a token may ask for (default 86400 s); a key retired now verifies this long more. */
  readonly maxTtlSeconds: number;
  /** Leeway on `exp`, in seconds. */
  readonly clockToleranceSeconds: number;
}

export const DEFAULT_LOCAL_ISSUER: LocalIssuerSettings = {
  issuer: 'urn:taskqueue:local',
  audience: 'taskqueue',
  defaultTtlSeconds: 3600,
  maxTtlSeconds: 86_400,
  clockToleranceSeconds: 30,
};

/** What `mint` is asked for. */
export interface MintRequest {
  readonly email: string;
  /** Scope URLs or aliases (default: the full taskqueue scope). */
  readonly scopes?: readonly string[];
  /** Lifetime in seconds (default `defaultTtlSeconds`). */
  readonly ttlSeconds?: number;
}

/** A minted access token, in the shape of an OAuth token response. */
export interface MintedToken {
  readonly accessToken: string;
  readonly tokenType: 'Bearer';
  /** Seconds it lives. */
  readonly expiresIn: number;
  /** Granted scopes, space-separated URLs. */
  readonly scope: string;
}

export interface LocalIssuerDeps {
  readonly scopeAliases: Readonly<Record<string, string>>;
  /** Clock in epoch ms (tests). */
  readonly now?: () => number;
  /** Cache timings of the verification keys (tests shorten them). */
  readonly keyCache?: Omit<LocalKeySetOptions, 'now'>;
}

/** The one signing algorithm: ES256 keys are small, fast to make, and every JOSE library verifies them. */
const ALG = 'ES256';
/** RFC 9068 access-token type: an ID token or other JWT cannot pass for one of ours (RFC 8725 §3.11). */
const TYP = 'at+jwt';

/**
 * The service's own token issuer, so that a newcomer gets a token with one
 * command and no identity provider. Its ES256 key lives in the database
 * (sql/0006_auth.sql): every process sharing the database signs and
 * verifies with the same keys, and a token minted by the CLI is accepted by
 * every server. The key is created on first use and rotatable; a retired key
 * keeps verifying until every token it signed has expired.
 *
 * Anyone who can mint (read the database, or reach the loopback endpoint
 * with its secret) can claim any e-mail: this issuer is for deployments
 * whose database is as trusted as their administrators, and is switched off
 * with TASKQUEUE_LOCAL_ISSUER=off where an identity provider issues tokens.
 */
export class LocalIssuer implements JwtIssuer {
  readonly #settings: LocalIssuerSettings;
  readonly #store: AuthStore;
  readonly #aliases: Readonly<Record<string, string>>;
  readonly #now: () => number;
  readonly #keys: LocalKeySet;

  constructor(settings: LocalIssuerSettings, store: AuthStore, deps: LocalIssuerDeps) {
    this.#settings = settings;
    this.#store = store;
    this.#aliases = deps.scopeAliases;
    this.#now = deps.now ?? Date.now;
    this.#keys = new LocalKeySet(store, { ...deps.keyCache, now: this.#now });
  }

  get issuer(): string {
    return this.#settings.issuer;
  }

  /**
   * Mints a token for `email`. The active key is read from the database on
   * every mint (not cached), so a process never signs with a key another
   * process has retired. Refuses (INVALID_REQUEST) a bad e-mail, an unknown
   * scope, or a lifetime past the key's maximum.
   */
  async mint(request: MintRequest): Promise<MintedToken> {
    if (!isEmailAddress(request.email)) throw badMint(`"${request.email}" is not an e-mail address`);
    const scopes = expandScopes((request.scopes ?? [TASKQUEUE_SCOPE]).join(' '), this.#aliases);
    const unknown = scopes.filter((scope) => !(KNOWN_SCOPES as readonly string[]).includes(scope));
    if (scopes.length === 0 || unknown.length > 0) {
      throw badMint(`unknown scope ${unknown.join(' ') || '(none)'}; use taskqueue, taskqueue.consumer or their URLs`);
    }
    const key = await this.#activeKey();
    const maxTtl = Math.min(this.#settings.maxTtlSeconds, key.maxTokenSeconds);
    const ttl = request.ttlSeconds ?? Math.min(this.#settings.defaultTtlSeconds, maxTtl);
    if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > maxTtl) {
      throw badMint(`the lifetime must be a whole number of seconds from 1 to ${maxTtl}, got ${ttl}`);
    }
    const now = Math.floor(this.#now() / 1000);
    const scope = scopes.join(' ');
    const accessToken = await new SignJWT({ email: request.email, email_verified: true, scope })
      .setProtectedHeader({ alg: ALG, kid: key.kid, typ: TYP })
      .setIssuer(this.#settings.issuer)
      .setAudience(this.#settings.audience)
      .setSubject(request.email)
      .setIssuedAt(now)
      .setExpirationTime(now + ttl)
      .setJti(randomBytes(16).toString('base64url'))
      .sign(await importJWK(key.privateJwk as JWK, ALG));
    return { accessToken, tokenType: 'Bearer', expiresIn: ttl, scope };
  }

  /** Verifies a token of this issuer: ES256 only, `typ` at+jwt, our `iss` and `aud`, `exp` and `iat` required. */
  async verify(token: string): Promise<VerifiedIdentity> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, (header) => this.#keys.keyFor(header.kid), {
        issuer: this.#settings.issuer,
        audience: this.#settings.audience,
        algorithms: [ALG],
        typ: TYP,
        requiredClaims: ['exp', 'iat'],
        clockTolerance: this.#settings.clockToleranceSeconds,
        currentDate: new Date(this.#now()),
      }));
    } catch (error) {
      throw tokenFailure(error);
    }
    this.#checkIssuedAt(payload);
    return identityFromClaims(payload, this.#settings.issuer, this.#aliases);
  }

  /**
   * jose checks `exp` and `nbf` but not when the token says it was issued.
   * This issuer never mints a token dated in the future, nor one that lives
   * longer than its maximum: such a token was signed by someone holding the
   * key outside `mint` (a copied key, a skewed clock), and would otherwise
   * stay valid for as long as its forger liked.
   */
  #checkIssuedAt(payload: Record<string, unknown>): void {
    const { iat, exp } = payload;
    if (typeof iat !== 'number' || typeof exp !== 'number') throw invalidToken('"iat" and "exp" must be numbers');
    const now = this.#now() / 1000;
    if (iat > now + this.#settings.clockToleranceSeconds) {
      throw invalidToken('"iat" claim timestamp check failed (issued in the future)');
    }
    if (exp - iat > this.#settings.maxTtlSeconds) {
      throw invalidToken(`the token lives longer than the issuer's maximum of ${this.#settings.maxTtlSeconds} seconds`);
    }
  }

  /**
   * Retires the active key and starts signing with a new one. Tokens signed
   * by the old key stay valid until they expire; with `revoke` they stop
   * being accepted at once here, and in other processes once their key
   * cache is reread (at most a minute). Returns the new key's `kid`.
   */
  async rotateKey(options: { revoke?: boolean } = {}): Promise<string> {
    const next = await generateSigningKey(this.#settings.maxTtlSeconds);
    await this.#store.rotateSigningKey(next, { revoke: options.revoke ?? false });
    this.#keys.invalidate();
    return next.kid;
  }

  /** The active key, created when there is none yet (the first process to insert wins; the others use its key). */
  async #activeKey(): Promise<ActiveSigningKey> {
    const active = await this.#store.activeSigningKey();
    if (active !== null) return active;
    await this.#store.insertSigningKey(await generateSigningKey(this.#settings.maxTtlSeconds));
    const created = await this.#store.activeSigningKey();
    if (created === null)
      throw new QueueError('TRANSIENT_ERROR', 'the local issuer could not create its signing key; retry');
    return created;
  }
}

/** A new ES256 key pair, named by its RFC 7638 thumbprint. */
export async function generateSigningKey(maxTokenSeconds: number): Promise<NewSigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    publicJwk: { ...publicJwk, kid, alg: ALG, use: 'sig' },
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: ALG },
    maxTokenSeconds,
  };
}

function badMint(message: string): QueueError {
  return new QueueError('INVALID_REQUEST', message, { reason: 'badRequest' });
}
