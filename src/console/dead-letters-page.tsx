import type { AuditEntry } from '../core/audit-log.js';
import type { DeadLetter } from '../core/dead-letter.js';
import { DEAD_LETTER_COUNT_CAP } from '../core/dead-letter-desk.js';
import type { QueueOverview } from '../core/queue-overview.js';
import { ActionForm, BulkBar, ConfirmedForm } from './action-form.js';
import type { Viewer } from './console-viewer.js';
import { DEAD_LETTER_AGES, filterFields, isFiltered, type DeadLetterFilterForm } from './dead-letter-filter.js';
import { deathReason } from './dead-letter-reason.js';
import { formatCount } from './format.js';
import { Payload } from './payload-view.js';
import { QueueHeader } from './queue-header.js';
import { When } from './when.js';

export interface DeadLettersPageData {
  readonly overview: QueueOverview;
  readonly pausedBy: AuditEntry | null;
  readonly deadLetters: readonly DeadLetter[];
  readonly form: DeadLetterFilterForm;
  /** How many dead letters the filter matches (counted up to DEAD_LETTER_COUNT_CAP). */
  readonly matching: number;
  /** The URL of the next page, if there is one. */
  readonly next: string | null;
  readonly notice: string | null;
  readonly nowMs: number;
}

/**
 * A queue's dead letters, their own tab: newest death first (or oldest), a
 * page at a time, filtered by tag prefix, error text and age, each with why
 * it died and a link to its page; redriven or deleted one by one, a
 * selection, or all the filter matches (administrators).
 */
export function DeadLettersPage(props: { readonly viewer: Viewer; readonly data: DeadLettersPageData }) {
  const { viewer, data } = props;
  const { form } = data;
  const base = `/console/queues/${encodeURIComponent(data.overview.name)}`;
  const matching =
    data.matching >= DEAD_LETTER_COUNT_CAP
      ? `${formatCount(DEAD_LETTER_COUNT_CAP)} or more`
      : formatCount(data.matching);
  return (
    <section>
      <QueueHeader
        viewer={viewer}
        overview={data.overview}
        pausedBy={data.pausedBy}
        nowMs={data.nowMs}
        notice={data.notice}
        tab="dead-letters"
      />
      <form method="get" action={`${base}/dead-letters`} class="filter" id="dead-letter-filter">
        <label for="dead-tag">Tag starts with</label>
        <input id="dead-tag" name="tag" value={form.tag} placeholder="any tag" />
        <label for="dead-error">Error contains</label>
        <input id="dead-error" name="error" value={form.error} placeholder="any error" />
        <label for="dead-age">Died</label>
        <select id="dead-age" name="age">
          {DEAD_LETTER_AGES.map(([value, label]) => (
            <option value={value} selected={form.age === value}>
              {label}
            </option>
          ))}
        </select>
        <label for="dead-order">Order</label>
        <select id="dead-order" name="order">
          <option value="newest" selected={!form.oldest}>
            newest first
          </option>
          <option value="oldest" selected={form.oldest}>
            oldest first
          </option>
        </select>
        <button type="submit">Filter</button>
      </form>
      <p id="dead-letter-matching">
        {`${matching} dead letter${data.matching === 1 ? '' : 's'} ${isFiltered(form) ? 'match this filter' : 'in all'}.`}
      </p>
      {viewer.admin && data.matching > 0 && (
        <ActionForm viewer={viewer} action={`${base}/dead-letters/matching`} class="filter bulk">
          {Object.entries(filterFields(form)).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <label for="matching-op">{`With all ${matching}${isFiltered(form) ? ' matching' : ''}`}</label>
          <select id="matching-op" name="op">
            <option value="redrive">Redrive</option>
            <option value="forget">Delete for good</option>
          </select>
          <button type="submit" class="quiet">
            Review…
          </button>
        </ActionForm>
      )}
      {viewer.admin && (
        <BulkBar
          viewer={viewer}
          base={base}
          form="bulk-dead-letters"
          ops={[
            ['redrive', 'Redrive'],
            ['forget', 'Delete for good'],
          ]}
        />
      )}
      <table class="dead-letters cards" id="dead-letters-table">
        <thead>
          <tr>
            {viewer.admin && (
              <th scope="col" class="select">
                <input
                  type="checkbox"
                  data-select-all="bulk-dead-letters"
                  aria-label="Select every dead letter on this page"
                />
              </th>
            )}
            <th scope="col">Name</th>
            <th scope="col">Tag</th>
            <th scope="col">Reason</th>
            <th scope="col">Last error</th>
            <th scope="col">Died</th>
            <th scope="col">Added</th>
            <th scope="col">Payload</th>
            {viewer.admin && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {data.deadLetters.map((dead) => (
            <tr data-dead-letter={dead.name}>
              {viewer.admin && (
                <td class="select" data-label="Select">
                  <input
                    type="checkbox"
                    name="task"
                    value={dead.name}
                    form="bulk-dead-letters"
                    aria-label={`Select ${dead.name}`}
                  />
                </td>
              )}
              <td class="name" data-label="Name">
                <a href={`${base}/dead-letters/${encodeURIComponent(dead.name)}`}>{dead.name}</a>
              </td>
              <td data-label="Tag">{dead.tag ?? ''}</td>
              <td data-label="Reason">{deathReason(data.overview.mode, dead)}</td>
              <td class="last-error" data-label="Last error">
                {dead.lastError ?? ''}
              </td>
              <td data-label="Died">
                <When usec={dead.diedUsec} nowMs={data.nowMs} />
              </td>
              <td data-label="Added">
                <When usec={dead.enqueuedUsec} nowMs={data.nowMs} />
              </td>
              <td data-label="Payload">
                <Payload payload={dead.payload} />
              </td>
              {viewer.admin && (
                <td class="row-actions" data-label="Actions">
                  <ConfirmedForm
                    viewer={viewer}
                    action={`${base}/redrive`}
                    confirm={`Put ${dead.name} back in the queue?`}
                  >
                    <input type="hidden" name="task" value={dead.name} />
                    <input type="hidden" name="tab" value="dead-letters" />
                    <button type="submit" class="quiet">
                      Redrive
                    </button>
                  </ConfirmedForm>
                </td>
              )}
            </tr>
          ))}
          {data.deadLetters.length === 0 && (
            <tr>
              <td colspan={viewer.admin ? 9 : 7}>
                {isFiltered(form) ? 'No dead letter matches this filter.' : 'No dead letters.'}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {data.next && (
        <p>
          <a href={data.next}>Next page</a>
        </p>
      )}
    </section>
  );
}
