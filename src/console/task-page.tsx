import type { AuditEntry } from '../core/audit-log.js';
import { LONG_LEASE_MINUTES, type QueueOverview } from '../core/queue-overview.js';
import type { TaskAttempt } from '../core/task-attempt.js';
import type { Task } from '../core/task.js';
import { ConfirmedForm } from './action-form.js';
import { AttemptsTable } from './attempts-table.js';
import type { Viewer } from './console-viewer.js';
import { payloadView } from './payload-detail.js';
import { FullPayload, payloadSummary } from './payload-view.js';
import { PushRequestDetails } from './push-request-details.js';
import { pushEtaMeaning, pushStateClass, pushTaskStateOf } from './push-task-state.js';
import { QueueHeader } from './queue-header.js';
import { etaMeaning, taskStateOf } from './task-state.js';
import { When } from './when.js';

/**
 * One task in full: state, times, retry count, tag, and the whole payload:
 * pretty-printed when it is JSON, as text when it is text, else as hex and
 * ASCII side by side; its size, and a button that copies it. A push
 * task's page says where its delivery stands and shows its request
 * (push-request-details.tsx), secret header values masked.
 */
export function TaskPage(props: {
  readonly viewer: Viewer;
  readonly overview: QueueOverview;
  readonly pausedBy: AuditEntry | null;
  readonly task: Task;
  readonly attempts: readonly TaskAttempt[];
  readonly nowMs: number;
}) {
  const { viewer, task, nowMs } = props;
  const base = `/console/queues/${encodeURIComponent(props.overview.name)}`;
  const state = taskStateOf(task, nowMs);
  const push = task.push;
  const pushState = push ? pushTaskStateOf(task, nowMs) : null;
  const view = payloadView(task.payload);
  // Not due yet and not being delivered: "run now" makes it due (a pull lease ends, as a release ends it).
  const runnable = pushState === null ? state !== 'available' : pushState === 'retrying' || pushState === 'scheduled';
  const longLease =
    pushState === null && state === 'leased' && task.etaUsec / 1000 - nowMs > LONG_LEASE_MINUTES * 60_000;
  const latest = props.attempts[0];
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
        {task.name}
      </h2>
      <dl class="details" id="task-details">
        <dt>State</dt>
        <dd>
          {pushState === null ? (
            <span class={`badge state-${state}`}>{state}</span>
          ) : (
            <span class={`badge ${pushStateClass(pushState)}`}>{pushState}</span>
          )}
          {longLease && (
            <span
              class="badge long-lease"
              id="long-lease"
              title={`more than ${LONG_LEASE_MINUTES} minutes still to run`}
            >
              long lease
            </span>
          )}
        </dd>
        <dt>{capitalized(pushState === null ? etaMeaning(state, task.retryCount) : pushEtaMeaning(pushState))}</dt>
        <dd>
          <When usec={task.etaUsec} nowMs={nowMs} />
        </dd>
        <dt>Added</dt>
        <dd>
          <When usec={task.enqueuedUsec} nowMs={nowMs} />
        </dd>
        {push ? (
          <PushRequestDetails task={task} request={push} targetUrl={props.overview.push?.targetUrl ?? null} />
        ) : (
          <>
            <dt>Retries</dt>
            <dd>{`${task.retryCount} lease${task.retryCount === 1 ? '' : 's'} so far`}</dd>
          </>
        )}
        <dt>Tag</dt>
        <dd>{task.tag ?? <span class="hint">none</span>}</dd>
        <dt>Last error</dt>
        <dd class="last-error">
          {task.lastError ?? <span class="hint">none</span>}
          {latest?.responseExcerpt !== undefined && latest.responseExcerpt !== null && task.lastError !== null && (
            <pre class="excerpt" id="last-response">
              {latest.responseExcerpt}
            </pre>
          )}
        </dd>
        <dt>Payload</dt>
        <dd>{payloadSummary(task.payload, view)}</dd>
      </dl>
      {longLease && (
        <p class="hint" id="long-lease-hint">
          {`This lease has more than ${LONG_LEASE_MINUTES} minutes still to run. If its worker is gone, the task waits until then: run it now (or release it) to let another worker take it.`}
        </p>
      )}
      {viewer.admin && (
        <div class="actions">
          {runnable && (
            <ConfirmedForm
              viewer={viewer}
              action={`${base}/run`}
              confirm={
                state === 'leased' && !push
                  ? `Run ${task.name} now? Its lease ends and its worker loses it.`
                  : `Run ${task.name} now?`
              }
            >
              <input type="hidden" name="task" value={task.name} />
              <button type="submit" id="run-now">
                {task.retryCount > 0 ? 'Retry now' : 'Run now'}
              </button>
            </ConfirmedForm>
          )}
          {state === 'leased' && !push && (
            <ConfirmedForm
              viewer={viewer}
              action={`${base}/release`}
              confirm={`Release the lease on ${task.name}? Its worker loses it.`}
            >
              <input type="hidden" name="task" value={task.name} />
              <button type="submit">Release lease</button>
            </ConfirmedForm>
          )}
          <ConfirmedForm
            viewer={viewer}
            action={`${base}/delete`}
            confirm={`Delete task ${task.name}? This cannot be undone.`}
          >
            <input type="hidden" name="task" value={task.name} />
            <button type="submit" class="quiet danger-text">
              Delete
            </button>
          </ConfirmedForm>
        </div>
      )}
      <AttemptsTable attempts={props.attempts} nowMs={nowMs} />
      <FullPayload view={view} />
    </section>
  );
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
