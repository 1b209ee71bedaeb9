import { sql, type RawBuilder } from 'kysely';
import type { DeadLetterListParams } from '../core/task-store.js';
import { timestampFromUsec } from './store-context.js';

/** `value` as a LIKE pattern that matches it literally (the default escape character is the backslash). */
export function likeLiteral(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/**
 * The `and ...` conditions of a dead-letter filter: exact tag, tag prefix,
 * text in the last error (any case), died before an instant. Each is bound;
 * none is an index condition (the walk is the (queue_id, died_at, name)
 * index's, bounded by the page's limit), so a filter that matches few rows
 * reads more of the queue's dead letters before it fills a page.
 */
export function deadLetterFilter(params: DeadLetterListParams): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (params.tag !== undefined) parts.push(sql`and tag = ${params.tag}`);
  if (params.tagPrefix !== undefined) parts.push(sql`and tag like ${`${likeLiteral(params.tagPrefix)}%`}`);
  if (params.errorContains !== undefined)
    parts.push(sql`and last_error ilike ${`%${likeLiteral(params.errorContains)}%`}`);
  if (params.diedBeforeUsec !== undefined) parts.push(sql`and died_at < ${timestampFromUsec(params.diedBeforeUsec)}`);
  return parts.length === 0 ? sql`` : sql.join(parts, sql` `);
}
