import { createHash, timingSafeEqual } from 'node:crypto';
import { invalidApiKey } from './auth-errors.js';

/** A configured API key: the application it names and the SHA-256 of the key (hex). */
export interface ApiKeySettings {
  readonly application: string;
  readonly sha256: string;
}

/** The hex SHA-256 of an API key, the form keys are configured in (`taskqueue` never holds them in clear). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * `key=` API keys. Google's own text: an API key "identifies your project
 * and provides you with API access, quota, and reports"; it is not a user,
 * so it never satisfies a queue ACL. Here it only names the calling
 * application (Principal.application).
 *
 * Keys are configured as SHA-256 digests, so a leaked configuration leaks no
 * usable key. Digests are compared with timingSafeEqual, against every
 * configured key, so the time taken tells nothing about which one nearly
 * matched.
 */
export class ApiKeyRegistry {
  readonly #keys: ReadonlyArray<{ application: string; digest: Buffer }>;

  constructor(keys: readonly ApiKeySettings[]) {
    this.#keys = keys.map((key) => ({ application: key.application, digest: Buffer.from(key.sha256, 'hex') }));
  }

  /**
   * The application a key names. With no keys configured, keys are not
   * checked at all (Google client libraries send one out of habit) and the
   * answer is undefined; with keys configured, an unknown key is refused
   * (400 keyInvalid), as Google did.
   */
  identify(key: string | undefined): string | undefined {
    if (key === undefined || this.#keys.length === 0) return undefined;
    const digest = createHash('sha256').update(key, 'utf8').digest();
    let found: string | undefined;
    for (const entry of this.#keys) {
      if (timingSafeEqual(entry.digest, digest) && found === undefined) found = entry.application;
    }
    if (found === undefined) throw invalidApiKey();
    return found;
  }
}
