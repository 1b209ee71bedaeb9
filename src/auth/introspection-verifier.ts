import { createHash } from 'node:crypto';
import { isEmailAddress } from '../core/is-email-address.js';
import { isQueueError, QueueError } from '../core/errors.js';
import { invalidToken } from './auth-errors.js';
import { readCappedText, type FetchFunction } from './capped-fetch.js';
import { LruCache } from './lru-cache.js';
import { identityFromClaims, type VerifiedIdentity } from './verified-identity.js';

/** Settings of RFC 7662 introspection (TASKQUEUE_INTROSPECTION_*). */
export interface IntrospectionSettings {
  /** The authorization server's introspection endpoint (https; http only on loopback). */
  readonly url: string;
  /** This service's client credentials at that server (HTTP Basic, RFC 7662 §2.1). */
  readonly clientId: string;
  readonly clientSecret: string;
  /** Accepted `aud` values; when set, an answer must name one. Empty = not checked. */
  readonly audiences: readonly string[];
  /** Required `iss` of answers, or null = not checked. */
  readonly issuer: string | null;
  /** How long the endpoint may take (default 2000 ms); past it the request gets 503, never access. */
  readonly timeoutMs: number;
  /** Longest an active answer is reused (default 3600 s); never past the token's `exp`. */
  readonly maxCacheSeconds: number;
  /** How long an inactive answer is reused (default 10 s). */
  readonly negativeCacheSeconds: number;
  /** Most answers remembered (default 10,000; least recently used go first). */
  readonly cacheEntries: number;
  /** Leeway on `exp` and `nbf`, in seconds. */
  readonly clockToleranceSeconds: number;
}

export interface IntrospectionDeps {
  readonly scopeAliases: Readonly<Record<string, string>>;
  readonly fetch?: FetchFunction;
  /** Clock in epoch ms (tests). */
  readonly now?: () => number;
}

/** Cache lifetime of an active answer that gives no `exp`. */
const NO_EXP_CACHE_MS = 60_000;

/** Largest introspection answer read: a few claims are a few hundred bytes. */
const ANSWER_LIMIT_BYTES = 64 * 1024;

type CachedAnswer =
  { readonly ok: true; readonly identity: VerifiedIdentity } | { readonly ok: false; readonly why: string };

/**
 * Checks opaque access tokens with the authorization server (RFC 7662).
 *
 * Answers are remembered in a bounded LRU keyed by the token's SHA-256 (the
 * token itself is not kept): active ones for the token's remaining lifetime
 * (capped by `maxCacheSeconds`, which bounds how long a revoked token keeps
 * working), inactive ones briefly. Concurrent checks of one token share one
 * request. A slow, failing or nonsensical endpoint gives TRANSIENT_ERROR
 * (503) and is not cached: it never grants access.
 */
export class IntrospectionVerifier {
  readonly #settings: IntrospectionSettings;
  readonly #deps: IntrospectionDeps;
  readonly #now: () => number;
  readonly #cache: LruCache<CachedAnswer>;
  readonly #inFlight = new Map<string, Promise<CachedAnswer>>();

  constructor(settings: IntrospectionSettings, deps: IntrospectionDeps) {
    this.#settings = settings;
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#cache = new LruCache(settings.cacheEntries, this.#now);
  }

  /** The identity of an active token; 401 invalid_token for an inactive or foreign one; 503 when the endpoint fails. */
  async verify(token: string): Promise<VerifiedIdentity> {
    const key = createHash('sha256').update(token).digest('base64url');
    let answer = this.#cache.get(key);
    if (answer === undefined) {
      let pending = this.#inFlight.get(key);
      if (pending === undefined) {
        pending = this.#introspect(token).finally(() => this.#inFlight.delete(key));
        this.#inFlight.set(key, pending);
      }
      answer = await pending;
      this.#cache.set(key, answer, this.#cacheMs(answer));
    }
    if (!answer.ok) throw invalidToken(answer.why);
    if (answer.identity.expiresAt !== null && answer.identity.expiresAt + this.#toleranceMs() <= this.#now()) {
      throw invalidToken('the access token expired');
    }
    return answer.identity;
  }

  #cacheMs(answer: CachedAnswer): number {
    if (!answer.ok) return this.#settings.negativeCacheSeconds * 1000;
    const cap = this.#settings.maxCacheSeconds * 1000;
    const expiresAt = answer.identity.expiresAt;
    return Math.min(cap, expiresAt === null ? NO_EXP_CACHE_MS : expiresAt - this.#now());
  }

  #toleranceMs(): number {
    return this.#settings.clockToleranceSeconds * 1000;
  }

  async #introspect(token: string): Promise<CachedAnswer> {
    const claims = await this.#ask(token);
    if (claims.active !== true) return { ok: false, why: 'the token is not active' };
    const now = this.#now();
    if (typeof claims.exp === 'number' && claims.exp * 1000 + this.#toleranceMs() <= now) {
      return { ok: false, why: 'the access token expired' };
    }
    if (typeof claims.nbf === 'number' && claims.nbf * 1000 - this.#toleranceMs() > now) {
      return { ok: false, why: 'the access token is not valid yet' };
    }
    const { audiences, issuer } = this.#settings;
    if (audiences.length > 0) {
      const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
      if (!aud.some((value) => audiences.includes(value))) return { ok: false, why: 'unexpected aud claim value' };
    }
    if (issuer !== null && claims.iss !== issuer) return { ok: false, why: 'unexpected iss claim value' };
    if (
      typeof claims.token_type === 'string' &&
      !['access_token', 'bearer'].includes(claims.token_type.toLowerCase())
    ) {
      return { ok: false, why: 'the token is not an access token' };
    }
    const username = claims.username;
    const withEmail =
      claims.email === undefined && typeof username === 'string' && isEmailAddress(username)
        ? { ...claims, email: username }
        : claims;
    try {
      return { ok: true, identity: identityFromClaims(withEmail, this.#settings.url, this.#deps.scopeAliases) };
    } catch (error) {
      if (isQueueError(error, 'UNAUTHENTICATED')) return { ok: false, why: String(error.details.description) };
      throw error;
    }
  }

  /** POSTs the token (RFC 7662 §2.1) and returns the answer's JSON object. */
  async #ask(token: string): Promise<Record<string, unknown>> {
    const { url, clientId, clientSecret, timeoutMs } = this.#settings;
    // RFC 6749 §2.3.1: client id and secret are form-encoded before base64.
    const basic = Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64');
    let text: string;
    try {
      const response = await (this.#deps.fetch ?? fetch)(url, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await readCappedText(response, ANSWER_LIMIT_BYTES);
      if (response.status !== 200) throw new Error(`status ${response.status}`);
    } catch (error) {
      throw unavailable(error);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw unavailable(error);
    }
    if (typeof parsed !== 'object' || parsed === null || typeof (parsed as { active?: unknown }).active !== 'boolean') {
      throw unavailable(new Error('the answer has no boolean "active"'));
    }
    return parsed as Record<string, unknown>;
  }
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

function unavailable(cause: unknown): QueueError {
  return new QueueError(
    'TRANSIENT_ERROR',
    'the token introspection endpoint did not answer usably; retry later',
    {},
    { cause },
  );
}
