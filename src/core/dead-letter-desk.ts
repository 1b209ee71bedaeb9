import { AUDIT_NAMES_KEPT, type AuditAction, type Operator } from './audit-log.js';
import type { DeadLetter, DeadLetterRef } from './dead-letter.js';
import { QueueError } from './errors.js';
import type { QueueContext } from './queue-context.js';
import { requireIntegerIn } from './require-integer.js';
import { TASK_NAME_PATTERN } from './task.js';
import { validateTag } from './validate-tag.js';

/** Which of a queue's dead letters: every condition given must hold. */
export interface DeadLetterFilter {
  /** The tag, exactly. */
  readonly tag?: string;
  /** The tag starts with this. */
  readonly tagPrefix?: string;
  /** The last error contains this, any case. */
  readonly errorContains?: string;
  /** Died before this instant (microseconds since the epoch): "older than an hour". */
  readonly diedBeforeUsec?: number;
}

/** A page of dead letters: a filter, an order, and where the previous page ended. */
export interface DeadLetterQuery extends DeadLetterFilter {
  /** At most this many (1 to 1000). */
  readonly limit: number;
  readonly after?: DeadLetterRef;
  /** Newest death first (what an operator looks at first); default oldest first. */
  readonly newestFirst?: boolean;
}

/** Counting the dead letters of a filter stops here: enough to confirm a bulk action by. */
export const DEAD_LETTER_COUNT_CAP = 100_000;
/** Dead letters per statement of an action on all that match a filter. */
const MATCHING_BATCH = 500;
/** Longest text an error search or tag prefix may be: they are bound, but a megabyte pattern is no one's search. */
const MAX_FILTER_TEXT = 500;

/**
 * An operator's dead-letter desk for one queue: one letter in full, pages
 * filtered by tag, tag prefix, error text and age, their count, and the
 * bulk actions on "all matching this filter" (redrive, delete for good)
 * that a count confirmed: never more letters than `max`, the count the
 * operator was shown. Obtained from `operate(queue).deadLetterDesk()`;
 * every action writes one audit entry, as QueueOperations' do.
 */
export class DeadLetterDesk {
  readonly #ctx: QueueContext;
  readonly #operator: Operator;

  constructor(ctx: QueueContext, operator: Operator) {
    this.#ctx = ctx;
    this.#operator = operator;
  }

  get #queue(): string {
    return this.#ctx.ref.queueName;
  }

  /** The dead letter of that name, or null (never one, redriven, deleted or expired). */
  async get(name: string): Promise<DeadLetter | null> {
    if (typeof name !== 'string' || !TASK_NAME_PATTERN.test(name)) {
      throw new QueueError('INVALID_TASK_NAME', 'a dead letter is named like a task', { queue: this.#queue });
    }
    return this.#ctx.store.getDeadLetter({ ...this.#ctx.ref, name });
  }

  /** One page of the letters a filter matches. */
  async list(query: DeadLetterQuery): Promise<DeadLetter[]> {
    const limit = requireIntegerIn(query.limit, 'limit', 1, 1000, this.#queue);
    const after = query.after;
    if (after && (!Number.isSafeInteger(after.diedUsec) || typeof after.name !== 'string')) {
      throw new QueueError('INVALID_REQUEST', 'after must be a dead letter (integer diedUsec and a name)', {
        queue: this.#queue,
        field: 'after',
      });
    }
    return this.#ctx.store.listDeadLetters({
      ...this.#ctx.ref,
      ...this.#checked(query),
      limit,
      ...(after ? { after: { name: after.name, diedUsec: after.diedUsec } } : {}),
      ...(query.newestFirst === true ? { newestFirst: true } : {}),
    });
  }

  /** How many letters the filter matches, up to DEAD_LETTER_COUNT_CAP. */
  async count(filter: DeadLetterFilter): Promise<number> {
    return this.#ctx.store.countDeadLetters({
      ...this.#ctx.ref,
      ...this.#checked(filter),
      limit: 1,
      cap: DEAD_LETTER_COUNT_CAP,
    });
  }

  /**
   * Puts back every letter the filter matches, oldest death first, at most
   * `max` of them, a batch per statement; one audit entry counts them (and
   * names the first AUDIT_NAMES_KEPT). Resolves to how many went back.
   */
  async redriveMatching(filter: DeadLetterFilter, max: number): Promise<number> {
    return this.#matching('redrive', filter, max, async (names) => {
      const done = await this.#ctx.store.redriveDeadLetters({ ...this.#ctx.ref, names, batchSize: MATCHING_BATCH });
      if (done.count > 0) this.#ctx.events.added(this.#queue, done.count);
      return done.names;
    });
  }

  /** Deletes for good every letter the filter matches, at most `max`; one audit entry. */
  async deleteMatching(filter: DeadLetterFilter, max: number): Promise<number> {
    return this.#matching('delete_dead_letters', filter, max, (names) =>
      this.#ctx.store.deleteDeadLetters({ ...this.#ctx.ref, names }),
    );
  }

  async #matching(
    action: AuditAction,
    filter: DeadLetterFilter,
    max: number,
    act: (names: string[]) => Promise<readonly string[]>,
  ): Promise<number> {
    requireIntegerIn(max, 'max', 0, DEAD_LETTER_COUNT_CAP, this.#queue);
    const checked = this.#checked(filter);
    let done = 0;
    let after: DeadLetterRef | undefined;
    const named: string[] = [];
    try {
      while (done < max) {
        const page = await this.#ctx.store.listDeadLetters({
          ...this.#ctx.ref,
          ...checked,
          limit: Math.min(MATCHING_BATCH, max - done),
          ...(after ? { after } : {}),
        });
        if (page.length === 0) break;
        const acted = await act(page.map((letter) => letter.name));
        done += acted.length;
        named.push(...acted.slice(0, Math.max(0, AUDIT_NAMES_KEPT - named.length)));
        const last = page[page.length - 1]!;
        after = { name: last.name, diedUsec: last.diedUsec };
        if (page.length < MATCHING_BATCH) break;
      }
    } finally {
      // What was done before a failing batch is recorded too.
      if (done > 0 || after === undefined) await this.#record(action, done, named);
    }
    return done;
  }

  #record(action: AuditAction, count: number, names: readonly string[]): Promise<void> {
    return this.#ctx.store.recordAudit({
      actor: this.#operator.actor,
      source: this.#operator.source,
      action,
      queue: this.#queue,
      target: count === 1 && names.length === 1 ? names[0]! : null,
      count,
      names,
    });
  }

  /** The filter, checked: a bad tag or an overlong text is INVALID_REQUEST (or INVALID_TAG) naming the field. */
  #checked(filter: DeadLetterFilter): DeadLetterFilter {
    const details = (field: string) => ({ queue: this.#queue, field });
    const text = (value: unknown, field: string): string | undefined => {
      if (value === undefined || value === '') return undefined;
      if (typeof value !== 'string' || value.length > MAX_FILTER_TEXT || value.includes('\u0000')) {
        throw new QueueError('INVALID_REQUEST', `${field} must be text of at most ${MAX_FILTER_TEXT} characters`, {
          ...details(field),
        });
      }
      return value;
    };
    const tag = filter.tag === undefined ? null : validateTag(filter.tag, details('tag'));
    const tagPrefix = text(filter.tagPrefix, 'tagPrefix');
    const errorContains = text(filter.errorContains, 'errorContains');
    const before = filter.diedBeforeUsec;
    if (before !== undefined && !Number.isSafeInteger(before)) {
      throw new QueueError('INVALID_REQUEST', 'diedBeforeUsec must be an integer', details('diedBeforeUsec'));
    }
    return {
      ...(tag === null ? {} : { tag }),
      ...(tagPrefix === undefined ? {} : { tagPrefix }),
      ...(errorContains === undefined ? {} : { errorContains }),
      ...(before === undefined ? {} : { diedBeforeUsec: before }),
    };
  }
}
