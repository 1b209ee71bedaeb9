import { sql, type Kysely } from 'kysely';
import type { Logger } from '../../core/logger.js';
import type { Database } from '../schema.js';

/**
 * Writes the service's tombstone retention where the SQL API reads it
 * (tombstone_retention(), sql/routines/tombstone_retention.sql): delete_task and add_task decide
 * whether a generated name is still held by its form with the same period
 * as the service.
 */
export async function writeTombstoneRetention(
  db: Kysely<Database>,
  schema: string,
  retentionMs: number,
): Promise<void> {
  await sql`/* write_tombstone_retention */
    insert into ${sql.id(schema, 'service_settings')} (name, value) values ('tombstone_retention_ms', ${retentionMs}::int8)
    on conflict (name) do update set value = excluded.value`.execute(db);
}

/** The roles of the SQL API for a schema: who may add, and who may lease, modify and delete. */
export function sqlApiRoles(schema: string): { producer: string; consumer: string } {
  return { producer: `${schema}_producer`, consumer: `${schema}_consumer` };
}

/**
 * The SQL API's roles that do not exist: the migration skips them (with a
 * WARNING) where the migrating user may not create roles, and the service
 * logs this at start-up so the operator learns of it.
 */
export async function missingSqlApiRoles(db: Kysely<Database>, schema: string): Promise<string[]> {
  const { producer, consumer } = sqlApiRoles(schema);
  const result = await sql<{ rolname: string }>`/* missing_sql_api_roles */
    select r as rolname from unnest(array[${producer}, ${consumer}]::text[]) r
     where not exists (select 1 from pg_roles where rolname = r)`.execute(db);
  return result.rows.map((row) => row.rolname);
}

/**
 * What the SQL API needs of a starting service (the server path, which
 * writes the configuration): the tombstone retention written where its
 * functions read it, and a warning naming the roles the migration could
 * not create.
 */
export async function prepareSqlApi(
  db: Kysely<Database>,
  schema: string,
  options: { readonly tombstoneRetentionMs: number; readonly logger: Logger },
): Promise<void> {
  await writeTombstoneRetention(db, schema, options.tombstoneRetentionMs);
  const missing = await missingSqlApiRoles(db, schema);
  if (missing.length > 0) {
    options.logger.warn(
      { schema, roles: missing },
      'SQL API roles missing (the migrating user may not create roles): an administrator can create and grant them, see docs/sql-api.md',
    );
  }
}
