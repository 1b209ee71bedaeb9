import {
  signingKeyGetActive,
  signingKeyInsert,
  signingKeyListVerifiable,
  signingKeyRotate,
  type ActiveSigningKey,
  type NewSigningKey,
  type VerifyingKey,
} from './auth-signing-keys.js';
import type { StoreContext } from './store-context.js';

/**
 * Auth's storage (the `AuthStore` of src/auth/auth-store.ts) on the
 * service's database and schema. It matches that interface by shape: the
 * store does not import auth, and the composition that hands it to auth
 * (server, CLI) is where the compiler checks the fit.
 */
export class PgAuthStore {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  activeSigningKey(): Promise<ActiveSigningKey | null> {
    return signingKeyGetActive(this.#ctx);
  }

  insertSigningKey(key: NewSigningKey): Promise<boolean> {
    return signingKeyInsert(this.#ctx, key);
  }

  verifiableSigningKeys(): Promise<VerifyingKey[]> {
    return signingKeyListVerifiable(this.#ctx);
  }

  rotateSigningKey(next: NewSigningKey, options: { readonly revoke: boolean }): Promise<void> {
    return signingKeyRotate(this.#ctx, next, options);
  }
}
