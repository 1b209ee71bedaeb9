import { sql, type RawBuilder } from 'kysely';
import { PAYLOAD_SEARCH_BYTES } from '../core/task-search.js';
import type { SearchPosition, TaskSearchParams, TaskSearchResult } from '../core/task-store.js';
import { likeLiteral } from './dead-letter-filter.js';
import { PUSH_COLUMNS } from './read-tasks.js';
import { table, timestampFromUsec, toNumber, usecOf, type StoreContext } from './store-context.js';
import { taskFromRow, type TaskRow } from './task-row.js';

/**
 * The least string greater than every string that starts with `prefix`,
 * in code point order (which is the byte order of UTF-8, so the order of
 * the C collation that name and tag have, sql/0002): its last code point
 * one up (past the surrogates), or, when that is the last one of Unicode,
 * the same for the prefix without it. Null when none exists. With it a
 * prefix is a range of the index, `>= prefix and < upper`: a generic plan
 * cannot turn `like $1` into one.
 */
export function prefixUpperBound(prefix: string): string | null {
  const points = Array.from(prefix, (character) => character.codePointAt(0)!);
  while (points.length > 0) {
    const last = points.pop()!;
    if (last < 0x10ffff) {
      points.push(last + 1 === 0xd800 ? 0xe000 : last + 1);
      return String.fromCodePoint(...points);
    }
  }
  return null;
}

/** `column` in the range of a prefix: index conditions. */
function prefixRange(column: RawBuilder<unknown>, prefix: string): RawBuilder<unknown> {
  const upper = prefixUpperBound(prefix);
  return upper === null ? sql`and ${column} >= ${prefix}` : sql`and ${column} >= ${prefix} and ${column} < ${upper}`;
}

/** The ORDER BY keys of each walk, and how a row compares with a position in it. */
function walkOf(params: TaskSearchParams): {
  readonly keys: RawBuilder<unknown>;
  readonly range: RawBuilder<unknown>;
  readonly after: RawBuilder<unknown>;
} {
  const at: SearchPosition | undefined = params.after;
  if (params.walk === 'name') {
    // The primary key (queue_id, name).
    return {
      keys: sql`name`,
      range: prefixRange(sql`name`, params.namePrefix ?? ''),
      after: at ? sql`and name > ${at.name}` : sql``,
    };
  }
  const eta = at ? timestampFromUsec(at.etaUsec) : null;
  if (params.walk === 'tag' && params.tag !== undefined) {
    // tasks_tag_lease_idx (queue_id, tag, eta) where tag is not null, at one tag: ETA order (the name
    // breaks ties). The tag is no key: PostgreSQL drops a constant from the inner order but not from
    // the outer, and would sort every candidate between them.
    return {
      keys: sql`eta, name`,
      range: sql`and tag = ${params.tag}`,
      after: at ? sql`and (eta, name) > (${eta}, ${at.name})` : sql``,
    };
  }
  if (params.walk === 'tag') {
    // The same index over a range of tags: tag, then ETA order.
    return {
      keys: sql`tag, eta, name`,
      range: params.tagPrefix !== undefined ? prefixRange(sql`tag`, params.tagPrefix) : sql`and tag is not null`,
      after: at ? sql`and (tag, eta, name) > (${at.tag}, ${eta}, ${at.name})` : sql``,
    };
  }
  // tasks_lease_idx (queue_id, eta): a state of ETA is a range of it too.
  return {
    keys: sql`eta, name`,
    range:
      params.state === 'available'
        ? sql`and eta <= now()`
        : params.state === 'leased' || params.state === 'delayed'
          ? sql`and eta > now()`
          : sql``,
    after: at ? sql`and (eta, name) > (${eta}, ${at.name})` : sql``,
  };
}

/** The filters no index serves, checked on each candidate; true when there are none. */
function residual(params: TaskSearchParams): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  // The states of TaskState, in the one-timestamp model (as list_tasks words them).
  if (params.state === 'available') parts.push(sql`eta <= now()`);
  if (params.state === 'leased') parts.push(sql`eta > now() and retry_count > 0`);
  if (params.state === 'delayed') parts.push(sql`eta > now() and retry_count = 0`);
  if (params.state === 'failing') parts.push(sql`last_error is not null`);
  if (params.walk === 'name' && params.tag !== undefined) parts.push(sql`tag = ${params.tag}`);
  if (params.walk === 'name' && params.tagPrefix !== undefined)
    parts.push(sql`tag like ${`${likeLiteral(params.tagPrefix)}%`}`);
  if (params.errorText !== undefined) parts.push(sql`last_error ilike ${`%${likeLiteral(params.errorText)}%`}`);
  // Bytes within bytes: no decoding (a payload need not be UTF-8), and a
  // match of UTF-8 bytes is a match of the text (UTF-8 is self-synchronising).
  if (params.payloadText !== undefined)
    parts.push(
      sql`position(${Buffer.from(params.payloadText, 'utf8')}::bytea in substring(payload from 1 for ${PAYLOAD_SEARCH_BYTES}::int4)) > 0`,
    );
  return parts.length === 0 ? sql`true` : sql.join(parts, sql` and `);
}

type SearchRow = TaskRow & { n: unknown; hit: boolean; last: boolean };

/**
 * One request of a search. The walk (`w`) reads the candidates in index
 * order, at most `scanLimit` + 1 of them (the one past the limit only says
 * whether more remain); each candidate is numbered and checked against
 * the filters no index serves (`c`); the outer query keeps the matches and
 * the row that ends the walk (the limit's or the last), in order, and
 * stops at `limit` + 1 rows. Every step streams (the outer order is the
 * walk's keys, which the window's rows already have: ordering by `n`
 * instead made PostgreSQL sort every candidate first), so a page that
 * fills early reads no further, and a search that matches nothing reads
 * `scanLimit` + 1 index entries and their rows, never the queue.
 */
export async function searchTasks(ctx: StoreContext, params: TaskSearchParams): Promise<TaskSearchResult> {
  const walk = walkOf(params);
  const result = await sql<SearchRow>`/* search_tasks */
    select name, tag, payload, retry_count, last_error, eta_usec, enqueued_usec,
           push, execution_count, last_status, in_flight, n, hit, last
      from (select w.*, ${residual(params)} as hit,
                   row_number() over walk as n,
                   lead(true) over walk is null as last
              from (select name, tag, payload, retry_count, last_error, eta,
                           ${usecOf(sql`eta`)} as eta_usec, ${usecOf(sql`enqueued_at`)} as enqueued_usec,
                           ${PUSH_COLUMNS}
                      from ${table(ctx, 'tasks')}
                     where queue_id = ${params.queueId} ${walk.range} ${walk.after}
                     order by ${walk.keys}
                     limit ${params.scanLimit + 1}::int4) w
            window walk as (order by ${walk.keys})) c
     where n <= ${params.scanLimit}::int8 and (hit or n = ${params.scanLimit}::int8 or last)
     order by ${walk.keys}
     limit ${params.limit + 1}::int4`.execute(ctx.db);
  const rows = result.rows;
  const position = (row: SearchRow): SearchPosition => ({
    etaUsec: toNumber(row.eta_usec),
    name: row.name,
    tag: row.tag,
  });
  const hits = rows.filter((row) => row.hit);
  const tasks = hits.slice(0, params.limit).map((row) => taskFromRow(params.queueName, row));
  if (hits.length > params.limit) {
    const last = hits[params.limit - 1]!;
    return { tasks, next: position(last), scanned: toNumber(last.n), bounded: false };
  }
  // Fewer matches than a page: the walk ended here, at its limit or at its last candidate.
  const end = rows.find((row) => row.last || toNumber(row.n) === params.scanLimit);
  if (!end) return { tasks, next: null, scanned: 0, bounded: false };
  const more = !end.last;
  return { tasks, next: more ? position(end) : null, scanned: toNumber(end.n), bounded: more };
}
