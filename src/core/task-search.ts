import { QueueError } from './errors.js';
import type { QueueContext } from './queue-context.js';
import { requireIntegerIn } from './require-integer.js';
import { TASK_NAME_PATTERN, type Task } from './task.js';
import type { SearchPosition, SearchState, SearchWalk } from './task-store.js';
import { validateTag } from './validate-tag.js';

export type { SearchPosition, SearchState, SearchWalk } from './task-store.js';

/** The states a search takes. */
export const SEARCH_STATES: readonly SearchState[] = ['available', 'leased', 'delayed', 'failing'];

/** Which of a queue's live tasks: every condition given must hold. */
export interface TaskSearchFilter {
  /** The name starts with this (letters, digits, `_` and `-`). */
  readonly namePrefix?: string;
  /** The tag, exactly. */
  readonly tag?: string;
  /** The tag starts with this. */
  readonly tagPrefix?: string;
  readonly state?: SearchState;
  /** The last error contains this, any case. */
  readonly errorText?: string;
  /** The payload's bytes contain this text's UTF-8 bytes (case matters; see PAYLOAD_SEARCH_BYTES). */
  readonly payloadText?: string;
}

/** One request of a search: a filter, a page size, and where the previous request stopped. */
export interface TaskSearch extends TaskSearchFilter {
  /** At most this many tasks (1 to SEARCH_PAGE_MAX, default 50). */
  readonly limit?: number;
  /** `next` of the previous page of the same search. */
  readonly cursor?: string;
  /** Read at most this many candidates (1 to SEARCH_SCAN_LIMIT, the default): tests and careful callers lower it. */
  readonly scanLimit?: number;
}

/** What one search request found. */
export interface TaskSearchPage {
  /** The tasks that match, in the search's order (see `searchTasks`). */
  readonly tasks: Task[];
  /** Where the next request of this search starts (its `cursor`); null when nothing remains. */
  readonly next: string | null;
  /** Candidates read by this request (tasks the index walk gave, before the filters that no index serves). */
  readonly scanned: number;
  /**
   * True when the request stopped because it read its scan limit of
   * candidates, not because the page was full: more of the queue remains
   * to be searched from `next`, and `tasks` may be short or empty.
   */
  readonly bounded: boolean;
}

/** The most tasks one page holds. */
export const SEARCH_PAGE_MAX = 100;
/**
 * The most candidates one request reads. A filter that no index serves
 * (error text, payload text, a state outside the ETA walk) is checked on
 * the candidates of the walk, and a request stops after this many, so no
 * request reads a large queue through: it returns what it found and
 * where to go on (docs/performance.md measures it).
 */
export const SEARCH_SCAN_LIMIT = 10_000;
/** A payload search looks at the first this many bytes of each payload (the rest of a large payload is not read). */
export const PAYLOAD_SEARCH_BYTES = 65_536;
/** Longest text a tag prefix, error text or payload text may be: they are bound, but a megabyte pattern is no one's search. */
const MAX_SEARCH_TEXT = 500;

/**
 * Searches a queue's live tasks (task-search.ts): name prefix, tag or tag
 * prefix, state, error text, payload text. Tasks come in the walk's order
 * (name; tag, ETA, name; or ETA, name). Each request reads at most
 * SEARCH_SCAN_LIMIT candidates of the walk and then returns, bounded, with
 * the cursor of the next request. A bad filter is INVALID_REQUEST (or
 * INVALID_TAG) naming the field.
 */
export async function searchTasks(ctx: QueueContext, search: TaskSearch): Promise<TaskSearchPage> {
  const queue = ctx.ref.queueName;
  const details = (field: string) => ({ queue, field });
  const limit = requireIntegerIn(search.limit ?? 50, 'limit', 1, SEARCH_PAGE_MAX, queue);
  const scanLimit = requireIntegerIn(search.scanLimit ?? SEARCH_SCAN_LIMIT, 'scanLimit', 1, SEARCH_SCAN_LIMIT, queue);
  const text = (value: unknown, field: string): string | undefined => {
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string' || value.length > MAX_SEARCH_TEXT || value.includes('\u0000')) {
      throw new QueueError(
        'INVALID_REQUEST',
        `${field} must be text of at most ${MAX_SEARCH_TEXT} characters`,
        details(field),
      );
    }
    return value;
  };
  const namePrefix = text(search.namePrefix, 'namePrefix');
  if (namePrefix !== undefined && !TASK_NAME_PATTERN.test(namePrefix)) {
    throw new QueueError(
      'INVALID_REQUEST',
      'namePrefix must be the start of a task name: letters, digits, "_" and "-"',
      details('namePrefix'),
    );
  }
  const tag = validateTag(search.tag, details('tag'));
  const tagPrefix = text(search.tagPrefix, 'tagPrefix');
  if (tag !== null && tagPrefix !== undefined) {
    throw new QueueError('INVALID_REQUEST', 'give a tag or a tag prefix, not both', details('tagPrefix'));
  }
  const state = search.state;
  if (state !== undefined && !SEARCH_STATES.includes(state)) {
    throw new QueueError(
      'INVALID_REQUEST',
      `state must be one of ${SEARCH_STATES.join(', ')}, got "${String(state)}"`,
      details('state'),
    );
  }
  const errorText = text(search.errorText, 'errorText');
  const payloadText = text(search.payloadText, 'payloadText');
  const walk: SearchWalk = namePrefix !== undefined ? 'name' : tag !== null || tagPrefix !== undefined ? 'tag' : 'eta';
  const after = search.cursor === undefined || search.cursor === '' ? undefined : decodeCursor(search.cursor, walk);
  if (after === null) {
    throw new QueueError(
      'INVALID_REQUEST',
      'cursor is not the next page of this search: start the search again without it',
      details('cursor'),
    );
  }
  const found = await ctx.store.searchTasks({
    ...ctx.ref,
    walk,
    limit,
    scanLimit,
    ...(namePrefix === undefined ? {} : { namePrefix }),
    ...(tag === null ? {} : { tag }),
    ...(tagPrefix === undefined ? {} : { tagPrefix }),
    ...(state === undefined ? {} : { state }),
    ...(errorText === undefined ? {} : { errorText }),
    ...(payloadText === undefined ? {} : { payloadText }),
    ...(after === undefined ? {} : { after }),
  });
  return {
    tasks: found.tasks,
    next: found.next === null ? null : encodeCursor(walk, found.next),
    scanned: found.scanned,
    bounded: found.bounded,
  };
}

/**
 * A cursor: the walk and the position in it, base64url so callers treat it
 * as opaque; the `s1.` prefix lets the format change without misreading
 * old cursors.
 */
export function encodeCursor(walk: SearchWalk, position: SearchPosition): string {
  const json = JSON.stringify([walk, position.etaUsec, position.tag, position.name]);
  return `s1.${Buffer.from(json, 'utf8').toString('base64url')}`;
}

/** The position a cursor names, or null when it is not one of `walk`'s. */
function decodeCursor(cursor: string, walk: SearchWalk): SearchPosition | null {
  const match = typeof cursor === 'string' ? /^s1\.([A-Za-z0-9_-]{1,2000})$/.exec(cursor) : null;
  if (!match) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(match[1]!, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 4) return null;
  const [kind, etaUsec, tag, name] = value as unknown[];
  if (kind !== walk || !Number.isSafeInteger(etaUsec)) return null;
  if (typeof name !== 'string' || !TASK_NAME_PATTERN.test(name)) return null;
  if (tag !== null && typeof tag !== 'string') return null;
  if (walk === 'tag' && tag === null) return null;
  return { etaUsec: etaUsec as number, name, tag: tag as string | null };
}
