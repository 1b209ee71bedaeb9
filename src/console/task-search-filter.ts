import { SEARCH_STATES, type SearchState, type TaskSearchFilter } from '../core/task-search.js';

/** A task search as the console's form sends it (GET fields); "" = not given. */
export interface TaskSearchForm {
  /** Name prefix. */
  readonly name: string;
  /** Tag prefix. */
  readonly tag: string;
  /** One of SEARCH_STATES, or "". */
  readonly state: string;
  /** Text in the last error. */
  readonly error: string;
  /** Text in the payload. */
  readonly payload: string;
}

/** The form from request fields, anything unknown dropped. */
export function searchFormOf(field: (name: string) => unknown): TaskSearchForm {
  const text = (name: string) => {
    const value = field(name);
    return typeof value === 'string' ? value.trim() : '';
  };
  const state = text('state');
  return {
    name: text('name'),
    tag: text('tag'),
    state: SEARCH_STATES.includes(state as SearchState) ? state : '',
    error: text('error'),
    payload: text('payload'),
  };
}

/** The core's filter of a form. */
export function searchFilterOf(form: TaskSearchForm): TaskSearchFilter {
  return {
    ...(form.name === '' ? {} : { namePrefix: form.name }),
    ...(form.tag === '' ? {} : { tagPrefix: form.tag }),
    ...(form.state === '' ? {} : { state: form.state as SearchState }),
    ...(form.error === '' ? {} : { errorText: form.error }),
    ...(form.payload === '' ? {} : { payloadText: form.payload }),
  };
}

/** The form's fields that are set, for the next request's link. */
export function searchFields(form: TaskSearchForm): Record<string, string> {
  return Object.fromEntries(Object.entries(form).filter(([, value]) => value !== ''));
}
