import { sql, type RawBuilder } from 'kysely';
import type { TaskDeleteParams } from '../core/task-store.js';
import { auditedCte } from './audit-row.js';
import type { Database } from './schema.js';
import { table, type StoreContext } from './store-context.js';
import { tombstoneUpsert } from './tombstone-upsert.js';

/**
 * Deletes tasks by name, leased or not, in one statement, and holds the
 * names that are not held by their form with a tombstone in the same
 * statement. A deleted task vanishes from every read at once (it is no
 * longer in `tasks`). Returns the names actually deleted.
 *
 * When every name is held by its form (names the service generated, the
 * usual case), the statement is a plain delete: measured on PostgreSQL, the
 * tombstone insert doubled the time and tripled the WAL of a delete of 100.
 * An operator's delete (`audit` given) writes its audit entry in the same
 * statement, counting the tasks deleted.
 */
export async function deleteTasks(ctx: StoreContext, params: TaskDeleteParams): Promise<string[]> {
  if (params.names.length === 0) return [];
  const byForm = new Set(params.heldByForm);
  const untracked = params.names.filter((name) => byForm.has(name));
  const allUntracked = untracked.length === params.names.length && params.audit === undefined;
  const result = await deleteStatement((name) => table(ctx, name), allUntracked, {
    queueId: sql`${params.queueId}`,
    names: sql`${[...params.names]}`,
    untracked: sql`${untracked}`,
    audited: auditedCte(ctx, params.audit, 'gone'),
  }).execute(ctx.db);
  return result.rows.map((row) => row.name);
}

/** The values a delete binds, as fragments: bound parameters for the service, PL/pgSQL variables for delete_tasks. */
export interface DeleteValues {
  readonly queueId: RawBuilder<unknown>;
  /** The names to delete, a text[]. */
  readonly names: RawBuilder<unknown>;
  /** Of those, the names held by their form (no tombstone row), a text[]. */
  readonly untracked: RawBuilder<unknown>;
  /** An operator's audit entry (auditedCte), or nothing. */
  readonly audited: RawBuilder<unknown>;
}

/**
 * The delete, the one definition of which names get a tombstone row: the
 * service runs it with bound values, the SQL API's delete_tasks is generated
 * from it (sql-api-functions.ts). `allUntracked`: every name is held by its
 * form and no audit entry is written, so the statement is a plain delete.
 */
export function deleteStatement(
  tableOf: (name: keyof Database) => RawBuilder<unknown>,
  allUntracked: boolean,
  v: DeleteValues,
): RawBuilder<{ name: string }> {
  // Both primary-key columns in the conditions: an index scan that probes
  // each name (see PLANNER_SETTINGS in database.ts for young tables).
  if (allUntracked) {
    return sql<{ name: string }>`/* delete_tasks_untracked */
      delete from ${tableOf('tasks')}
       where queue_id = ${v.queueId} and name = any(${v.names}::text[])
      returning name`;
  }
  // Some names need a row: the same delete, with the tombstones of those
  // names only (usually none are left out: all chosen names, or all of an
  // older generated form).
  const held = tombstoneUpsert(tableOf, 'held', {
    queueId: v.queueId,
    source: 'gone',
    reason: 'deleted',
    where: sql`name <> all(${v.untracked}::text[])`,
  });
  return sql<{ name: string }>`/* delete_tasks */
    with gone as (
      delete from ${tableOf('tasks')}
       where queue_id = ${v.queueId} and name = any(${v.names}::text[])
      returning name, retry_count
    ), ${held}${v.audited}
    select name from gone`;
}
