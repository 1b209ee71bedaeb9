/**
 * The local issuer's signing keys as auth uses them and the store keeps them
 * (sql/0006_auth.sql). Here, in core, because both auth (AuthStore) and the
 * store's implementation name them, and neither may import the other.
 */

/** The key that signs new tokens. */
export interface ActiveSigningKey {
  readonly kid: string;
  readonly privateJwk: Record<string, unknown>;
  readonly maxTokenSeconds: number;
}

/** A key that still verifies tokens. */
export interface VerifyingKey {
  readonly kid: string;
  readonly publicJwk: Record<string, unknown>;
  /** Epoch ms after which it verifies nothing; null while it is the active key. */
  readonly verifyUntilMs: number | null;
}

/** A freshly generated key pair, as stored. */
export interface NewSigningKey {
  readonly kid: string;
  readonly publicJwk: Record<string, unknown>;
  readonly privateJwk: Record<string, unknown>;
  readonly maxTokenSeconds: number;
}
