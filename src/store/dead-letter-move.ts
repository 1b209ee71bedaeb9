import { sql, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';
import { tombstoneUpsert } from './tombstone-upsert.js';

/** What goes to the dead letters: from which rows, with which last outcome. */
export interface DeadLetterRows {
  readonly queueId: RawBuilder<unknown>;
  /**
   * The CTE of the tasks just deleted for good; it returns `name`, `tag`,
   * `payload`, `retry_count`, `enqueued_at` and `push`.
   */
  readonly source: string;
  /** The last delivery's HTTP status (a push outcome), or a column of `source`. */
  readonly lastStatus: RawBuilder<unknown>;
  /** The last error (a push outcome's), or a column of `source`. */
  readonly lastError: RawBuilder<unknown>;
}

/**
 * "To the dead letters with a tombstone", the one definition of what a
 * task that ran out of attempts leaves behind, for a push task's last
 * failure (pg-push-store.ts); the lease's retry limit keeps the same rule in
 * its UPDATE's trigger (sql/routines/tasks_after_lease.sql, where a change
 * here must follow): the CTE `tombstoned` holds its name with
 * reason 'retry_limit', and `dead` keeps the task itself (payload, tag,
 * retry count, enqueue time, push request, last outcome) in
 * task_dead_letters, returning 1 per letter. A name can die again once its
 * tombstone expired and it was re-added: the newer death wins, every column
 * of it. excluded.died_at is the column's default, now() (see
 * tombstone-upsert.ts on Citus).
 */
export function deadLetterMove(
  tableOf: (name: keyof Database) => RawBuilder<unknown>,
  rows: DeadLetterRows,
): RawBuilder<unknown> {
  const tombstoned = tombstoneUpsert(tableOf, 'tombstoned', {
    queueId: rows.queueId,
    source: rows.source,
    reason: 'retry_limit',
  });
  // Joined as the lease joins its CTEs (a line each, indented by the statement).
  return sql`${tombstoned},
dead as (
      insert into ${tableOf('task_dead_letters')}
             (queue_id, name, tag, payload, retry_count, enqueued_at, push, last_status, last_error)
      select ${rows.queueId}::int4, name, tag, payload, retry_count, enqueued_at, push, ${rows.lastStatus}::int4, ${rows.lastError}
        from ${sql.raw(rows.source)}
      on conflict (queue_id, name) do update
        set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
            enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, push = excluded.push,
            last_status = excluded.last_status, last_error = excluded.last_error
      returning 1
    )`;
}
