import { DEAD_LETTER_COUNT_CAP } from '../core/dead-letter-desk.js';
import { ActionForm } from './action-form.js';
import type { Viewer } from './console-viewer.js';
import { DEAD_LETTER_AGES, filterFields, isFiltered, type DeadLetterFilterForm } from './dead-letter-filter.js';
import { formatCount, plural } from './format.js';

/**
 * The page an action on all dead letters of a filter is confirmed from: it
 * says the filter and how many match now, and sends that count back, which
 * bounds what the action may touch.
 */
export function MatchingConfirm(props: {
  readonly viewer: Viewer;
  readonly queue: string;
  readonly op: 'redrive' | 'forget';
  readonly form: DeadLetterFilterForm;
  readonly count: number;
}) {
  const { form, count } = props;
  const list = `/console/queues/${encodeURIComponent(props.queue)}/dead-letters`;
  const verb = props.op === 'redrive' ? 'Put back in the queue' : 'Delete for good';
  const capped = count >= DEAD_LETTER_COUNT_CAP ? ` (the first ${formatCount(DEAD_LETTER_COUNT_CAP)})` : '';
  const what = `${verb} ${plural(count, 'dead letter')} of ${props.queue}${capped}`;
  const conditions = [
    form.tag === '' ? null : `tag starts with "${form.tag}"`,
    form.error === '' ? null : `last error contains "${form.error}"`,
    form.age === '' ? null : `died ${DEAD_LETTER_AGES.find(([value]) => value === form.age)?.[1] ?? ''}`,
  ].filter((condition): condition is string => condition !== null);
  return (
    <section>
      <h1>{count === 0 ? 'No dead letter matches' : `${what}?`}</h1>
      <p id="matching-filter">
        {isFiltered(form) ? `Every dead letter whose ${conditions.join(', and ')}.` : 'Every dead letter of the queue.'}
      </p>
      {count > 0 && (
        <ActionForm viewer={props.viewer} action={`${list}/matching`} class="actions">
          <input type="hidden" name="op" value={props.op} />
          <input type="hidden" name="confirm" value={String(Math.min(count, DEAD_LETTER_COUNT_CAP))} />
          {Object.entries(filterFields(form)).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <button type="submit" class={props.op === 'forget' ? 'danger' : undefined}>
            {what}
          </button>
          <a href={`${list}?${new URLSearchParams(filterFields(form)).toString()}`}>Cancel</a>
        </ActionForm>
      )}
      {count === 0 && <a href={list}>Back</a>}
    </section>
  );
}
