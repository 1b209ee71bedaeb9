import { sql, type ColumnType, type Generated, type RawBuilder } from 'kysely';
import type { StoreContext } from './store-context.js';

/**
 * Kysely's view of sql/0006_auth.sql, kept beside the auth queries until it
 * joins `Database` in schema.ts (then `table()` from store-context.ts
 * replaces `authTable()`).
 */
export interface AuthSigningKeysTable {
  kid: string;
  algorithm: 'ES256';
  public_jwk: ColumnType<Record<string, unknown>, string, string>;
  private_jwk: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  max_token_seconds: number;
  created_at: Generated<Date>;
  retired_at: Date | null;
  verify_until: Date | null;
}

export interface AuthDatabase {
  auth_signing_keys: AuthSigningKeysTable;
}

/** A schema-qualified auth table name for `sql` templates (queries must not depend on search_path). */
export function authTable(ctx: StoreContext, name: keyof AuthDatabase): RawBuilder<unknown> {
  return sql.table(`${ctx.schema}.${name}`);
}
