import type { AuditEntry } from '../core/audit-log.js';
import type { DeadLetter } from '../core/dead-letter.js';
import type { QueueOverview } from '../core/queue-overview.js';
import { BulkBar, ConfirmedForm } from './action-form.js';
import type { Viewer } from './console-viewer.js';
import { Payload } from './payload-view.js';
import { QueueHeader } from './queue-header.js';
import { When } from './when.js';

export interface DeadLettersPageData {
  readonly overview: QueueOverview;
  readonly pausedBy: AuditEntry | null;
  readonly deadLetters: readonly DeadLetter[];
  readonly tag: string | null;
  /** The URL of the next page, if there is one. */
  readonly next: string | null;
  readonly notice: string | null;
  readonly nowMs: number;
}

/**
 * A queue's dead letters, their own tab: oldest death first, a page at a
 * time, filtered by tag, each with why it died; redriven one by one or all
 * together (administrators).
 */
export function DeadLettersPage(props: { readonly viewer: Viewer; readonly data: DeadLettersPageData }) {
  const { viewer, data } = props;
  const base = `/console/queues/${encodeURIComponent(data.overview.name)}`;
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
      <form method="get" action={`${base}/dead-letters`} class="filter">
        <label for="dead-tag">Tag</label>
        <input id="dead-tag" name="tag" value={data.tag ?? ''} placeholder="any tag" />
        <button type="submit">Filter</button>
      </form>
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
                {dead.name}
              </td>
              <td data-label="Tag">{dead.tag ?? ''}</td>
              <td data-label="Reason">{deathReason(data.overview.mode, dead.retryCount)}</td>
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
                {data.tag === null ? 'No dead letters.' : 'No dead letter has that tag.'}
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

/**
 * Why a task died, in its queue's words: a pull task was leased and never
 * deleted; a push task was never leased, its deliveries failed (its retry
 * count is its attempts, the dispatcher's claims).
 */
function deathReason(mode: QueueOverview['mode'], count: number): string {
  const times = count === 1 ? '' : 's';
  if (mode === 'push') return `out of retries: ${count} delivery attempt${times}, none succeeded`;
  return `retry limit: leased ${count} time${times}, never deleted`;
}
