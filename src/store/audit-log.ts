import { sql } from 'kysely';
import {
  AUDIT_NAMES_KEPT,
  type AuditEntry,
  type AuditListOptions,
  type AuditLog,
  type NewAuditEntry,
} from '../core/audit-log.js';
import { QueueError } from '../core/errors.js';
import { auditPartialFilter } from './audit-filter.js';
import { table, toNumber, usecOf, type StoreContext } from './store-context.js';
import { translateError } from './translate-error.js';

interface AuditRow {
  id: unknown;
  at_usec: unknown;
  actor: string;
  action: AuditEntry['action'];
  queue: string;
  target: string | null;
  count: number;
  task_names: string[] | null;
  source: string;
}

const COLUMNS = sql`id, ${usecOf(sql`at`)} as at_usec, actor, action, queue, target, count, task_names, source`;

/** The audit log (sql/0010, 0020) in the service's schema: one insert per action, a keyset page per listing. */
export class PgAuditLog implements AuditLog {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Records one action; the time is the database's now(). */
  async record(entry: NewAuditEntry): Promise<AuditEntry> {
    try {
      return await recordAudit(this.#ctx, entry);
    } catch (error) {
      throw translateError(error, { queue: entry.queue });
    }
  }

  /** Newest first, `limit` at a time; `before` continues a listing, `queue`, `actor`, `actions` and `source` narrow it. */
  async list(options: AuditListOptions): Promise<AuditEntry[]> {
    if (!Number.isInteger(options.limit) || options.limit < 1 || options.limit > 1000) {
      throw new QueueError('INVALID_REQUEST', 'limit must be an integer from 1 to 1000', { field: 'limit' });
    }
    const before = options.before === undefined ? sql`` : sql`and id < ${options.before.id}::int8`;
    const queue = options.queue === undefined ? sql`` : sql`and queue = ${options.queue}`;
    const actor = options.actor === undefined ? sql`` : sql`and actor = ${options.actor}`;
    const actions = options.actions === undefined ? sql`` : sql`and action = any(${[...options.actions]}::text[])`;
    const source = options.source === undefined ? sql`` : sql`and source = ${options.source}`;
    const partial = auditPartialFilter(options);
    try {
      // Ids grow with time (an identity), so id order is the order of the actions.
      const result = await sql<AuditRow>`/* audit_list */
        select ${COLUMNS} from ${table(this.#ctx, 'audit_log')}
         where true ${before} ${queue} ${actor} ${actions} ${source} ${partial}
         order by id desc
         limit ${options.limit}::int4`.execute(this.#ctx.db);
      return result.rows.map(entryFromRow);
    } catch (error) {
      throw translateError(error, options.queue === undefined ? {} : { queue: options.queue });
    }
  }
}

/** Inserts one audit entry (the database's now() as its time); errors untranslated. */
export async function recordAudit(ctx: StoreContext, entry: NewAuditEntry): Promise<AuditEntry> {
  if (!Number.isSafeInteger(entry.count) || entry.count < 0) {
    throw new QueueError('INVALID_REQUEST', 'an audit entry counts a whole number of tasks', { field: 'count' });
  }
  const names = entry.names === undefined || entry.names.length === 0 ? null : entry.names.slice(0, AUDIT_NAMES_KEPT);
  const result = await sql<AuditRow>`/* audit_record */
    insert into ${table(ctx, 'audit_log')} (actor, action, queue, target, count, task_names, source)
    values (${entry.actor}, ${entry.action}, ${entry.queue}, ${entry.target ?? null}, ${entry.count},
            ${names}::text[], ${entry.source ?? 'console'})
    returning ${COLUMNS}`.execute(ctx.db);
  return entryFromRow(result.rows[0] as AuditRow);
}

function entryFromRow(row: AuditRow): AuditEntry {
  return {
    id: toNumber(row.id),
    atUsec: toNumber(row.at_usec),
    actor: row.actor,
    action: row.action,
    queue: row.queue,
    target: row.target,
    count: row.count,
    names: row.task_names ?? [],
    source: row.source,
  };
}
