import type { AuditEntry } from '../core/audit-log.js';
import type { DeadLetter } from '../core/dead-letter.js';
import type { QueueOverview } from '../core/queue-overview.js';
import { ActionForm, ConfirmedForm } from './action-form.js';
import type { Viewer } from './console-viewer.js';
import { deathReason } from './dead-letter-reason.js';
import { payloadView } from './payload-detail.js';
import { FullPayload, payloadSummary } from './payload-view.js';
import { QueueHeader } from './queue-header.js';
import { When } from './when.js';

/**
 * One dead letter in full: that it is a dead letter (a task found by name
 * that died comes here, not to "deleted"), why it died in its queue's
 * words, its attempts, last error, tag, when it was added and when it
 * died, and its whole payload; redrive and delete for good (administrators).
 */
export function DeadLetterPage(props: {
  readonly viewer: Viewer;
  readonly overview: QueueOverview;
  readonly pausedBy: AuditEntry | null;
  readonly letter: DeadLetter;
  readonly nowMs: number;
}) {
  const { viewer, letter, nowMs } = props;
  const base = `/console/queues/${encodeURIComponent(props.overview.name)}`;
  const push = props.overview.mode === 'push';
  const view = payloadView(letter.payload);
  return (
    <section>
      <QueueHeader
        viewer={viewer}
        overview={props.overview}
        pausedBy={props.pausedBy}
        nowMs={nowMs}
        notice={null}
        tab="task"
      />
      <h2 class="name" id="task-name">
        {letter.name} <span class="badge dead">dead letter</span>
      </h2>
      <p id="dead-letter-why">
        {`This task is a dead letter: ${deathReason(props.overview.mode, letter)}. Its name stays held until the letter is redriven or expires.`}
      </p>
      <dl class="details" id="task-details">
        <dt>Died</dt>
        <dd>
          <When usec={letter.diedUsec} nowMs={nowMs} />
        </dd>
        <dt>{push ? 'Delivery attempts' : 'Leases'}</dt>
        <dd>{String(letter.retryCount)}</dd>
        <dt>Last error</dt>
        <dd class="last-error">{letter.lastError ?? <span class="hint">none reported</span>}</dd>
        <dt>Added</dt>
        <dd>
          <When usec={letter.enqueuedUsec} nowMs={nowMs} />
        </dd>
        <dt>Tag</dt>
        <dd>{letter.tag ?? <span class="hint">none</span>}</dd>
        <dt>Payload</dt>
        <dd>{payloadSummary(letter.payload, view)}</dd>
      </dl>
      {viewer.admin && (
        <div class="actions">
          <ConfirmedForm viewer={viewer} action={`${base}/redrive`} confirm={`Put ${letter.name} back in the queue?`}>
            <input type="hidden" name="task" value={letter.name} />
            <input type="hidden" name="tab" value="dead-letters" />
            <button type="submit">Redrive</button>
          </ConfirmedForm>
          <ActionForm viewer={viewer} action={`${base}/bulk`}>
            <input type="hidden" name="op" value="forget" />
            <input type="hidden" name="task" value={letter.name} />
            <button type="submit" class="quiet danger-text">
              Delete for good…
            </button>
          </ActionForm>
        </div>
      )}
      <p>
        <a href={`${base}/dead-letters`}>All dead letters of {props.overview.name}</a>
      </p>
      <FullPayload view={view} />
    </section>
  );
}
