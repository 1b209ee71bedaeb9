import { importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import { QueueError } from '../core/errors.js';
import type { AuthStore } from './auth-store.js';
import { DEFAULT_LOCAL_ISSUER, generateSigningKey } from './local-issuer.js';
import { LruCache } from './lru-cache.js';

/**
 * The JWT type of delivery tokens. The REST API and the console accept only
 * `at+jwt` access tokens whose audience is the service (local-issuer.ts), so
 * a handler that replays the token it was sent gets 401 from us: the type
 * and the audience (the handler's URL) both differ.
 */
export const PUSH_TOKEN_TYPE = 'JWT';

export interface PushTokenSettings {
  /** `iss`: the local issuer's (default `urn:taskqueue:local`). */
  readonly issuer: string;
  /** `email` and `sub`: who calls (TASKQUEUE_PUSH_IDENTITY, default `taskqueue@<project>`). */
  readonly email: string;
  /** Lifetime of a token (default 300 s). */
  readonly ttlSeconds?: number;
}

/** How long a signed token is reused for its audience: a fifth of its life, so a handler always gets one with most of it left. */
const REUSE_FRACTION = 0.2;
/** How often the active key is read again (a rotation elsewhere is picked up within this). */
const KEY_REFRESH_MS = 60_000;

/**
 * Signs the `Authorization: Bearer` token of each push request with the
 * local issuer's ES256 key (the same keys, in the database, every process
 * shares; published at /.well-known/jwks.json), `aud` the URL delivered to
 * (without its query). A token is reused for its audience for a while:
 * signing costs more CPU than the rest of a delivery.
 */
export class PushTokenSigner {
  readonly #store: AuthStore;
  readonly #settings: Required<PushTokenSettings>;
  readonly #tokens = new LruCache<string>(10_000);
  #key: Promise<{ kid: string; key: CryptoKey | Uint8Array }> | null = null;
  #keyAt = 0;

  constructor(store: AuthStore, settings: PushTokenSettings) {
    this.#store = store;
    this.#settings = { ttlSeconds: 300, ...settings };
  }

  /** A token for a request to `audience`. */
  async sign(audience: string): Promise<string> {
    const cached = this.#tokens.get(audience);
    if (cached !== undefined) return cached;
    const { kid, key } = await this.#activeKey();
    const now = Math.floor(Date.now() / 1000);
    const ttl = this.#settings.ttlSeconds;
    const token = await new SignJWT({ email: this.#settings.email, email_verified: true })
      .setProtectedHeader({ alg: 'ES256', kid, typ: PUSH_TOKEN_TYPE })
      .setIssuer(this.#settings.issuer)
      .setAudience(audience)
      .setSubject(this.#settings.email)
      .setIssuedAt(now)
      .setExpirationTime(now + ttl)
      .sign(key);
    this.#tokens.set(audience, token, ttl * 1000 * REUSE_FRACTION);
    return token;
  }

  #activeKey(): Promise<{ kid: string; key: CryptoKey | Uint8Array }> {
    if (this.#key === null || Date.now() - this.#keyAt > KEY_REFRESH_MS) {
      this.#keyAt = Date.now();
      this.#key = this.#loadKey();
      this.#key.catch(() => {
        this.#key = null;
      });
    }
    return this.#key;
  }

  async #loadKey(): Promise<{ kid: string; key: CryptoKey | Uint8Array }> {
    let active = await this.#store.activeSigningKey();
    if (active === null) {
      await this.#store.insertSigningKey(await generateSigningKey(DEFAULT_LOCAL_ISSUER.maxTtlSeconds));
      active = await this.#store.activeSigningKey();
    }
    if (active === null) throw new QueueError('TRANSIENT_ERROR', 'no signing key for push tokens; retry');
    return { kid: active.kid, key: await importJWK(active.privateJwk as JWK, 'ES256') };
  }
}

/** The public keys of every local-issuer key that may still verify a token: the document at /.well-known/jwks.json. */
export async function publicJwks(store: AuthStore): Promise<{ keys: Record<string, unknown>[] }> {
  const keys = await store.verifiableSigningKeys();
  return { keys: keys.map((row) => ({ ...row.publicJwk, kid: row.kid, alg: 'ES256', use: 'sig' })) };
}
