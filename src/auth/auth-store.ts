import type { ActiveSigningKey, NewSigningKey, VerifyingKey } from '../core/signing-keys.js';

export type { ActiveSigningKey, NewSigningKey, VerifyingKey };

/**
 * The seam between auth and the database, as TaskStore is the core's: the
 * local issuer's signing keys (sql/0006_auth.sql). `store/pg-auth-store.ts`
 * implements it on PostgreSQL and PGlite; the composition (server, CLI)
 * hands it over, so auth imports nothing of the store. Failures arrive as
 * QueueErrors (TRANSIENT_ERROR, DEADLINE_EXCEEDED), never as SQLSTATEs.
 */
export interface AuthStore {
  /** The key that signs new tokens, or null before the first token was minted. */
  activeSigningKey(): Promise<ActiveSigningKey | null>;
  /**
   * Stores `key` as the active key unless another process got there first
   * (one active key at a time); returns whether it won.
   */
  insertSigningKey(key: NewSigningKey): Promise<boolean>;
  /** Every key that may still verify a token: the active one and retired ones whose tokens may live on. */
  verifiableSigningKeys(): Promise<VerifyingKey[]>;
  /**
   * Retires the active key and makes `next` the active one, atomically. The
   * retired key drops its private half and verifies for its
   * `maxTokenSeconds` more; with `revoke`, it stops verifying now.
   */
  rotateSigningKey(next: NewSigningKey, options: { readonly revoke: boolean }): Promise<void>;
}
