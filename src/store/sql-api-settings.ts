import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Writes the service's tombstone retention where the SQL API reads it
 * (tombstone_retention() of sql/0015): delete_task and add_task decide
 * whether a generated name is still held by its form with the same period
 * as the service.
 */
export async function writeTombstoneRetention(db: Kysely<Database>, schema: string, retentionMs: number): Promise<void> {
  await sql`/* write_tombstone_retention */
    insert into ${sql.id(schema, 'service_settings')} (name, value) values ('tombstone_retention_ms', ${retentionMs}::int8)
    on conflict (name) do update set value = excluded.value`.execute(db);
}
