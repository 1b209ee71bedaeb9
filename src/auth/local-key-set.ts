import { importJWK, type CryptoKey } from 'jose';
import { invalidToken } from './auth-errors.js';
import type { AuthStore, VerifyingKey } from './auth-store.js';

export interface LocalKeySetOptions {
  /** How long the loaded keys are trusted before they are read again (default 60 s). */
  readonly cacheMaxAgeMs?: number;
  /** Least time between two reads caused by an unknown `kid` (default 1 s). */
  readonly cooldownMs?: number;
  /** Clock in epoch ms (tests). */
  readonly now?: () => number;
}

/**
 * The local issuer's verification keys, read from the database and cached,
 * the way jose's remote JWKS caches an identity provider's: the set is
 * reread when it is older than `cacheMaxAgeMs`, or when a token names a
 * `kid` it lacks (another process created or rotated the key), but at most
 * once per `cooldownMs`, so made-up `kid`s cannot turn every request into a
 * query. A retired key stops verifying at its verify_until even while
 * cached; a revoked one disappears at the next read (within
 * `cacheMaxAgeMs` everywhere).
 */
export class LocalKeySet {
  readonly #store: AuthStore;
  readonly #cacheMaxAgeMs: number;
  readonly #cooldownMs: number;
  readonly #now: () => number;
  #keys = new Map<string, { key: Promise<CryptoKey>; verifyUntilMs: number | null }>();
  #loadedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | null = null;

  constructor(store: AuthStore, options: LocalKeySetOptions = {}) {
    this.#store = store;
    this.#cacheMaxAgeMs = options.cacheMaxAgeMs ?? 60_000;
    this.#cooldownMs = options.cooldownMs ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /** The public key a token's `kid` names; 401 invalid_token when there is none (or it has retired for good). */
  async keyFor(kid: string | undefined): Promise<CryptoKey> {
    if (kid === undefined) throw invalidToken('the token names no key (kid)');
    if (this.#now() - this.#loadedAt >= this.#cacheMaxAgeMs) await this.#reload();
    if (!this.#keys.has(kid) && this.#now() - this.#loadedAt >= this.#cooldownMs) await this.#reload();
    const entry = this.#keys.get(kid);
    if (entry === undefined) throw invalidToken('no key of the issuer matches the token');
    if (entry.verifyUntilMs !== null && entry.verifyUntilMs <= this.#now()) {
      throw invalidToken('the key that signed the token has been retired');
    }
    return entry.key;
  }

  /** Forgets the cache, so the next token rereads the keys (after a rotation in this process). */
  invalidate(): void {
    this.#loadedAt = Number.NEGATIVE_INFINITY;
  }

  /** Rereads the keys; concurrent callers share one query. */
  async #reload(): Promise<void> {
    this.#loading ??= this.#store
      .verifiableSigningKeys()
      .then((rows) => this.#replace(rows))
      .finally(() => {
        this.#loading = null;
      });
    await this.#loading;
  }

  #replace(rows: readonly VerifyingKey[]): void {
    const next = new Map<string, { key: Promise<CryptoKey>; verifyUntilMs: number | null }>();
    for (const row of rows) {
      const known = this.#keys.get(row.kid);
      const key = known?.key ?? (importJWK(row.publicJwk, 'ES256') as Promise<CryptoKey>);
      // A key that fails to import fails the tokens naming it (keyFor awaits
      // it), not the process as an unhandled rejection.
      key.catch(() => {});
      next.set(row.kid, { key, verifyUntilMs: row.verifyUntilMs });
    }
    this.#keys = next;
    this.#loadedAt = this.#now();
  }
}
