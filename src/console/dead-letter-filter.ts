import type { DeadLetterFilter } from '../core/dead-letter-desk.js';

/** The ages the dead-letter filter offers: died longer ago than this. */
export const DEAD_LETTER_AGES = [
  ['', 'any age'],
  ['1h', 'older than 1 hour'],
  ['1d', 'older than 1 day'],
  ['7d', 'older than 7 days'],
] as const;

const AGE_MS: Record<string, number> = { '1h': 3_600_000, '1d': 86_400_000, '7d': 7 * 86_400_000 };

/** A dead-letter filter as the console's form sends it (GET fields, or the hidden fields of a bulk form). */
export interface DeadLetterFilterForm {
  /** Tag prefix ("" = any). */
  readonly tag: string;
  /** Text in the last error ("" = any). */
  readonly error: string;
  /** One of DEAD_LETTER_AGES ("" = any). */
  readonly age: string;
  /** Oldest death first; else newest first. */
  readonly oldest: boolean;
}

/** The form from request fields, anything unknown dropped. */
export function filterFormOf(field: (name: string) => unknown): DeadLetterFilterForm {
  const text = (name: string) => {
    const value = field(name);
    return typeof value === 'string' ? value.trim() : '';
  };
  const age = text('age');
  return { tag: text('tag'), error: text('error'), age: age in AGE_MS ? age : '', oldest: text('order') === 'oldest' };
}

/** The core's filter of a form; ages count back from `nowMs`. */
export function deadLetterFilterOf(form: DeadLetterFilterForm, nowMs: number): DeadLetterFilter {
  const age = AGE_MS[form.age];
  return {
    ...(form.tag === '' ? {} : { tagPrefix: form.tag }),
    ...(form.error === '' ? {} : { errorContains: form.error }),
    ...(age === undefined ? {} : { diedBeforeUsec: (nowMs - age) * 1000 }),
  };
}

/** The form's fields that are set, for links and hidden inputs. */
export function filterFields(form: DeadLetterFilterForm): Record<string, string> {
  return {
    ...(form.tag === '' ? {} : { tag: form.tag }),
    ...(form.error === '' ? {} : { error: form.error }),
    ...(form.age === '' ? {} : { age: form.age }),
    ...(form.oldest ? { order: 'oldest' } : {}),
  };
}

/** Whether the form narrows anything (order aside). */
export function isFiltered(form: DeadLetterFilterForm): boolean {
  return form.tag !== '' || form.error !== '' || form.age !== '';
}
