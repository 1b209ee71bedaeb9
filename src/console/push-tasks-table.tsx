import type { Task } from '../core/task.js';
import { ConfirmedForm } from './action-form.js';
import type { Viewer } from './console-viewer.js';
import { Payload } from './payload-view.js';
import { pushEtaMeaning, pushStateClass, pushTaskStateOf } from './push-task-state.js';
import { When } from './when.js';

/**
 * A push queue's tasks: where each stands in its delivery (waiting, in
 * flight, retrying, scheduled) and when its next attempt is, its request
 * (method and url; the headers are on the task page, secrets masked), its
 * attempts and responses so far, and the last attempt's status and error.
 * No lease to release: a push task is only deleted from here.
 */
export function PushTasksTable(props: {
  readonly viewer: Viewer;
  readonly base: string;
  readonly tasks: readonly Task[];
  readonly nowMs: number;
}) {
  const { viewer, base, tasks, nowMs } = props;
  const columns = viewer.admin ? 11 : 9;
  return (
    // Live (by id): refreshed with the queue's figures.
    <table class="tasks cards push" id="tasks-table" data-live>
      <thead>
        <tr>
          {viewer.admin && (
            <th scope="col" class="select">
              <input type="checkbox" data-select-all="bulk-tasks" aria-label="Select every task on this page" />
            </th>
          )}
          <th scope="col">Name</th>
          <th scope="col">State</th>
          <th scope="col">Next attempt</th>
          <th scope="col">Request</th>
          <th class="num" scope="col" title="Attempts made so far (requests sent)">
            Attempts
          </th>
          <th class="num" scope="col" title="Attempts that got a response (X-AppEngine-TaskExecutionCount)">
            Executions
          </th>
          <th class="num" scope="col">
            Last status
          </th>
          <th scope="col">Last error</th>
          <th scope="col">Body</th>
          {viewer.admin && <th scope="col">Actions</th>}
        </tr>
      </thead>
      <tbody>
        {tasks.map((task) => {
          const state = pushTaskStateOf(task, nowMs);
          const request = task.push;
          const delivery = task.delivery;
          return (
            <tr data-task={task.name} data-state={state}>
              {viewer.admin && (
                <td class="select" data-label="Select">
                  <input
                    type="checkbox"
                    name="task"
                    value={task.name}
                    form="bulk-tasks"
                    aria-label={`Select ${task.name}`}
                  />
                </td>
              )}
              <td class="name" data-label="Name">
                <a href={`${base}/tasks/${encodeURIComponent(task.name)}`}>{task.name}</a>
              </td>
              <td data-label="State">
                <span class={`badge ${pushStateClass(state)}`}>{state}</span>
              </td>
              <td data-label="Next attempt">
                <span class="hint">{pushEtaMeaning(state)}</span> <When usec={task.etaUsec} nowMs={nowMs} />
              </td>
              <td class="request" data-label="Request">
                {request ? <code>{`${request.method} ${request.url}`}</code> : <span class="hint">pull task</span>}
              </td>
              <td class="num" data-label="Attempts">
                {String(task.retryCount)}
              </td>
              <td class="num" data-label="Executions">
                {String(delivery?.executionCount ?? 0)}
              </td>
              <td class="num last-status" data-label="Last status">
                {delivery?.lastStatus === null || delivery?.lastStatus === undefined ? '' : String(delivery.lastStatus)}
              </td>
              <td class="last-error" data-label="Last error">
                {task.lastError ?? ''}
              </td>
              <td data-label="Body">
                <Payload payload={task.payload} />
              </td>
              {viewer.admin && (
                <td class="row-actions" data-label="Actions">
                  <ConfirmedForm
                    viewer={viewer}
                    action={`${base}/delete`}
                    confirm={`Delete task ${task.name}? This cannot be undone${state === 'in flight' ? '; the request in flight finishes, its outcome is ignored' : ''}.`}
                  >
                    <input type="hidden" name="task" value={task.name} />
                    <button type="submit" class="quiet danger-text">
                      Delete
                    </button>
                  </ConfirmedForm>
                </td>
              )}
            </tr>
          );
        })}
        {tasks.length === 0 && (
          <tr>
            <td colspan={columns}>No task matches.</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
