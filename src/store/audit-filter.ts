import { sql, type RawBuilder } from 'kysely';
import type { AuditListOptions } from '../core/audit-log.js';
import { QueueError } from '../core/errors.js';
import { likeLiteral } from './dead-letter-filter.js';
import { timestampFromUsec } from './store-context.js';

/**
 * The `and ...` conditions of the audit log's partial filters: a queue
 * name's prefix, text in the actor (any case), a time range. Bound values,
 * LIKE characters taken literally. The listing walks the log newest first
 * by id and stops at its page's limit, so these narrow a bounded walk.
 */
export function auditPartialFilter(options: AuditListOptions): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (options.queuePrefix !== undefined) parts.push(sql`and queue like ${`${likeLiteral(options.queuePrefix)}%`}`);
  if (options.actorContains !== undefined)
    parts.push(sql`and actor ilike ${`%${likeLiteral(options.actorContains)}%`}`);
  for (const [field, value] of [
    ['sinceUsec', options.sinceUsec],
    ['untilUsec', options.untilUsec],
  ] as const) {
    if (value !== undefined && !Number.isSafeInteger(value))
      throw new QueueError('INVALID_REQUEST', `${field} must be an integer`, { field });
  }
  if (options.sinceUsec !== undefined) parts.push(sql`and at >= ${timestampFromUsec(options.sinceUsec)}`);
  if (options.untilUsec !== undefined) parts.push(sql`and at < ${timestampFromUsec(options.untilUsec)}`);
  return parts.length === 0 ? sql`` : sql.join(parts, sql` `);
}
