import { sql } from 'kysely';
import type { ActiveSigningKey, NewSigningKey, VerifyingKey } from '../core/signing-keys.js';
import { table, toNumber, type StoreContext } from './store-context.js';
import { translateError } from './translate-error.js';

/**
 * The queries of the local issuer's signing keys (sql/0006_auth.sql). Each
 * turns database errors into QueueErrors here, so the issuer above sees
 * TRANSIENT_ERROR / DEADLINE_EXCEEDED rather than a SQLSTATE.
 */

export type { ActiveSigningKey, NewSigningKey, VerifyingKey };

/** The active key, or null before the first token was minted. */
export async function signingKeyGetActive(ctx: StoreContext): Promise<ActiveSigningKey | null> {
  const result = await guard(() =>
    sql<{ kid: string; private_jwk: Record<string, unknown>; max_token_seconds: number }>`/* signing_key_active */
      select kid, private_jwk, max_token_seconds
        from ${table(ctx, 'auth_signing_keys')}
       where retired_at is null`.execute(ctx.db),
  );
  const row = result.rows[0];
  return row ? { kid: row.kid, privateJwk: row.private_jwk, maxTokenSeconds: toNumber(row.max_token_seconds) } : null;
}

/**
 * Stores `key` as the active key unless another process got there first
 * (the partial unique index admits one active key); returns whether it won.
 */
export async function signingKeyInsert(ctx: StoreContext, key: NewSigningKey): Promise<boolean> {
  const result = await guard(() =>
    sql`/* signing_key_insert */
      insert into ${table(ctx, 'auth_signing_keys')}
             (kid, algorithm, public_jwk, private_jwk, max_token_seconds)
      values (${key.kid}, 'ES256', ${JSON.stringify(key.publicJwk)}::jsonb,
              ${JSON.stringify(key.privateJwk)}::jsonb, ${key.maxTokenSeconds})
      on conflict do nothing`.execute(ctx.db),
  );
  return (result.numAffectedRows ?? 0n) > 0n;
}

/** Every key that may still verify a token: the active one and retired ones whose tokens may live on. */
export async function signingKeyListVerifiable(ctx: StoreContext): Promise<VerifyingKey[]> {
  const result = await guard(() =>
    sql<{ kid: string; public_jwk: Record<string, unknown>; verify_until_ms: unknown }>`/* signing_keys_verifiable */
      select kid, public_jwk,
             (extract(epoch from verify_until) * 1000)::int8 as verify_until_ms
        from ${table(ctx, 'auth_signing_keys')}
       where verify_until is null or verify_until > now()`.execute(ctx.db),
  );
  return result.rows.map((row) => ({
    kid: row.kid,
    publicJwk: row.public_jwk,
    verifyUntilMs: row.verify_until_ms === null ? null : toNumber(row.verify_until_ms),
  }));
}

/**
 * Retires the active key and makes `next` the active one, in one
 * transaction. The retired key drops its private half and verifies for
 * its `max_token_seconds` more, so tokens it signed live out their
 * lifetime; with `revoke`, it stops verifying now (a leaked key). Keys past
 * their verify_until are deleted on the way.
 */
export async function signingKeyRotate(
  ctx: StoreContext,
  next: NewSigningKey,
  options: { revoke: boolean },
): Promise<void> {
  const keys = table(ctx, 'auth_signing_keys');
  await guard(() =>
    ctx.db.transaction().execute(async (trx) => {
      await sql`/* signing_key_retire */
        update ${keys}
           set retired_at = now(),
               private_jwk = null,
               verify_until = case when ${options.revoke}::boolean then now()
                                   else now() + max_token_seconds * interval '1 second' end
         where retired_at is null`.execute(trx);
      await sql`/* signing_keys_drop_expired */ delete from ${keys} where verify_until <= now()`.execute(trx);
      await sql`/* signing_key_insert_next */
        insert into ${keys} (kid, algorithm, public_jwk, private_jwk, max_token_seconds)
        values (${next.kid}, 'ES256', ${JSON.stringify(next.publicJwk)}::jsonb,
                ${JSON.stringify(next.privateJwk)}::jsonb, ${next.maxTokenSeconds})`.execute(trx);
    }),
  );
}

async function guard<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw translateError(error);
  }
}
