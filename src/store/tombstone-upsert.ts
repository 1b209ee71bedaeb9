import { sql, type RawBuilder } from 'kysely';
import type { TombstoneReason } from '../core/tombstone.js';
import type { Database } from './schema.js';

/** What a tombstone CTE holds: whose names, from which rows, and why. */
export interface TombstoneRows {
  readonly queueId: RawBuilder<unknown>;
  /** The CTE of the tasks just deleted; it returns `name` and `retry_count`. */
  readonly source: string;
  readonly reason: TombstoneReason;
  /** Which of those rows get a tombstone (the others' names are held by their form); all when absent. */
  readonly where?: RawBuilder<unknown>;
}

/**
 * The one definition of how a deleted task's name is held: the CTE `cte`
 * that writes a tombstone row for each row of `rows.source`, or renews the
 * row a name already has (a name can go again once its task was re-added:
 * the newer going wins, with its reason and its lease count). Every
 * statement that deletes tasks by name, purge, retry limit or push outcome
 * takes it from here, and so do the SQL functions generated from those
 * statements (sql-api-functions.ts).
 *
 * excluded.deleted_at is the column's default, now(): the same value as
 * now() in the SET list, which a sharded PostgreSQL (Citus) refuses in ON
 * CONFLICT ... DO UPDATE.
 */
export function tombstoneUpsert(
  tableOf: (name: keyof Database) => RawBuilder<unknown>,
  cte: string,
  rows: TombstoneRows,
): RawBuilder<unknown> {
  const where = rows.where === undefined ? sql`` : sql` where ${rows.where}`;
  return sql`${sql.raw(cte)} as (
      insert into ${tableOf('task_tombstones')} (queue_id, name, reason, retry_count)
      select ${rows.queueId}::int4, name, ${sql.lit(rows.reason)}, retry_count from ${sql.raw(rows.source)}${where}
      on conflict (queue_id, name) do update
        set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
    )`;
}
