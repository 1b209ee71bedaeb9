import type { SearchState } from '../core/task-search.js';
import { SEARCH_STATES } from '../core/task-search.js';
import type { TaskSearchForm } from './task-search-filter.js';

/** The states' words on a push queue (the same states of the row underneath). */
const PUSH_WORDS: Readonly<Record<SearchState, string>> = {
  available: 'waiting',
  leased: 'in flight or retrying',
  delayed: 'scheduled',
  failing: 'failing (has a last error)',
};
const PULL_WORDS: Readonly<Record<SearchState, string>> = {
  available: 'available',
  leased: 'leased',
  delayed: 'delayed',
  failing: 'failing (has a last error)',
};

const EMPTY: TaskSearchForm = { name: '', tag: '', state: '', error: '', payload: '' };

/**
 * The search form of a queue's tasks: a GET form (works without
 * JavaScript; the results page is a link to share), every field labelled.
 * Its ids start with `search-`, apart from the queue page's own filter.
 */
export function TaskSearchFields(props: {
  readonly base: string;
  readonly push: boolean;
  readonly form?: TaskSearchForm;
}) {
  const form = props.form ?? EMPTY;
  const words = props.push ? PUSH_WORDS : PULL_WORDS;
  return (
    <form method="get" action={`${props.base}/search`} class="filter search" role="search" id="task-search">
      <label for="search-name">Name starts with</label>
      <input id="search-name" name="name" value={form.name} placeholder="any name" autocomplete="off" />
      <label for="search-tag">Tag starts with</label>
      <input id="search-tag" name="tag" value={form.tag} placeholder="any tag" autocomplete="off" />
      <label for="search-state">State</label>
      <select id="search-state" name="state">
        <option value="" selected={form.state === ''}>
          any
        </option>
        {SEARCH_STATES.map((state) => (
          <option value={state} selected={form.state === state}>
            {words[state]}
          </option>
        ))}
      </select>
      <label for="search-error">Last error contains</label>
      <input id="search-error" name="error" value={form.error} placeholder="any error" autocomplete="off" />
      <label for="search-payload">Payload contains</label>
      <input id="search-payload" name="payload" value={form.payload} placeholder="any payload" autocomplete="off" />
      <button type="submit">Search</button>
    </form>
  );
}
