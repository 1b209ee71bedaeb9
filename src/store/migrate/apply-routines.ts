import { sql, type Kysely, type Transaction } from 'kysely';
import type { Routine } from './routine.js';
import type { Database } from '../schema.js';
import { splitSql } from './split-sql.js';
import { sqlDigest } from './sql-digest.js';

/**
 * Applies, inside migrate()'s transaction and after the numbered
 * migrations, each routine whose digest differs from the one recorded in
 * schema_routines (or is not recorded), and records it: Flyway's repeatable
 * migrations. `all` applies every routine (after a numbered migration ran:
 * it may have dropped one to change a table under it). Returns the names
 * applied.
 *
 * Routines run in name order with check_function_bodies off (for this
 * transaction only), as pg_dump's output does: a SQL function's body may
 * then name a function of a routine later in the order (add_task calls
 * add_tasks). A view is checked whatever the setting, so a view may only
 * use routines earlier in the order (queue_stats uses queue_future_tasks).
 */
export async function applyRoutines(
  trx: Transaction<Database>,
  routines: readonly Routine[],
  all: boolean,
): Promise<string[]> {
  await sql`/* migrate_routine_bodies */ set local check_function_bodies = off`.execute(trx);
  const recorded = await recordedDigests(trx);
  const applied: string[] = [];
  for (const routine of [...routines].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const digest = sqlDigest(routine.text);
    if (!all && recorded.get(routine.name) === digest) continue;
    for (const statement of splitSql(routine.text)) await sql.raw(statement).execute(trx);
    await sql`/* migrate_routine_record */
      insert into schema_routines (name, digest) values (${routine.name}, ${digest})
      on conflict (name) do update set digest = excluded.digest, applied_at = excluded.applied_at`.execute(trx);
    applied.push(routine.name);
  }
  // A routine this version no longer ships: the migration that dropped its
  // object made it history; its row would only make every start look stale.
  await sql`/* migrate_routine_forget */
    delete from schema_routines where name <> all(${routines.map((r) => r.name)}::text[])`.execute(trx);
  return applied;
}

/** The digests schema_routines records, by name. */
export async function recordedDigests(db: Kysely<Database>): Promise<Map<string, string>> {
  const rows = await sql<{ name: string; digest: string }>`/* migrate_routines */
    select name, digest from schema_routines`.execute(db);
  return new Map(rows.rows.map((r) => [r.name, r.digest]));
}
