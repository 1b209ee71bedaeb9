import type { AuditEntry } from '../core/audit-log.js';
import type { QueueOverview } from '../core/queue-overview.js';
import type { Task } from '../core/task.js';
import type { TaskState } from '../core/task-store.js';
import type { Tombstone } from '../core/tombstone.js';
import { ActionForm, BulkBar, ConfirmedForm } from './action-form.js';
import type { Viewer } from './console-viewer.js';
import { Payload } from './payload-view.js';
import { PushTasksTable } from './push-tasks-table.js';
import { QueueHeader } from './queue-header.js';
import { TaskSearchFields } from './task-search-form.js';
import { etaMeaning, taskStateOf } from './task-state.js';
import { When } from './when.js';
import { plural } from './format.js';

/** What the queue page shows; the route gathers it from the core. */
export interface QueuePageData {
  readonly overview: QueueOverview;
  /** The entry of the pause, when the queue is paused and the audit log knows who paused it. */
  readonly pausedBy: AuditEntry | null;
  /** Null when the viewer may read the queue but not list its tasks (an ACL writer). */
  readonly tasks: readonly Task[] | null;
  readonly filter: { readonly state: TaskState | null; readonly tag: string | null };
  /** The URL of the next page of tasks, if there is one. */
  readonly nextTasks: string | null;
  readonly tombstones: readonly Tombstone[] | null;
  /** What the last action did (from the redirect after it), already worded. */
  readonly notice: string | null;
  /** When the page was made (epoch ms): relative times count from it. */
  readonly nowMs: number;
}

/**
 * One queue: its figures and charts over the last hour (refreshed
 * together, at the page's one refresh rate), the actions for
 * administrators, its tasks (each with its state, filtered by state and
 * tag, a page at a time, or found by name) and its recent tombstones. Dead
 * letters have their own tab.
 */
export function QueuePage(props: { readonly viewer: Viewer; readonly data: QueuePageData }) {
  const { viewer, data } = props;
  const q = data.overview;
  const base = `/console/queues/${encodeURIComponent(q.name)}`;
  return (
    <section>
      <QueueHeader
        viewer={viewer}
        overview={q}
        pausedBy={data.pausedBy}
        nowMs={data.nowMs}
        notice={data.notice}
        tab="tasks"
      />
      {viewer.admin && <Actions viewer={viewer} queue={q} base={base} />}

      <div class="charts">
        <figure>
          <figcaption>
            {q.push
              ? 'Tasks by state, last hour (available: waiting; leased: in flight or retrying; delayed: scheduled)'
              : 'Tasks by state, last hour'}
          </figcaption>
          <div class="chart" data-chart="depth" data-series={`${base}/series.json`}></div>
        </figure>
        {/* Push deliveries are not leases: the lease chart would say nothing of them. */}
        {!q.push && (
          <figure>
            <figcaption>Tasks leased per minute, last hour</figcaption>
            <div class="chart" data-chart="lease-rate" data-series={`${base}/series.json`}></div>
          </figure>
        )}
      </div>

      <h2>Tasks</h2>
      {data.tasks === null ? (
        <p class="hint">Your access lets you see this queue's figures, not its tasks.</p>
      ) : (
        <TaskSection viewer={viewer} base={base} data={data} tasks={data.tasks} />
      )}

      {data.tombstones !== null && <Tombstones tombstones={data.tombstones} nowMs={data.nowMs} />}
    </section>
  );
}

function Actions(props: { readonly viewer: Viewer; readonly queue: QueueOverview; readonly base: string }) {
  const { viewer, queue, base } = props;
  const dead = plural(queue.deadLetters, 'dead letter');
  const tasks = queue.availableTasks + queue.leasedTasks + queue.delayedTasks;
  return (
    <div class="actions" id="queue-actions">
      {queue.paused ? (
        <ActionForm viewer={viewer} action={`${base}/resume`}>
          <button type="submit">Resume</button>
        </ActionForm>
      ) : (
        <ConfirmedForm
          viewer={viewer}
          action={`${base}/pause`}
          confirm={
            queue.push
              ? `Pause ${queue.name}? None of its ${plural(queue.availableTasks + queue.leasedTasks + queue.delayedTasks, 'task')} will be dispatched until it is resumed; requests in flight finish.`
              : `Pause ${queue.name}? Leases will return none of its ${plural(queue.availableTasks, 'available task')} until it is resumed.`
          }
        >
          <button type="submit">Pause</button>
        </ConfirmedForm>
      )}
      <ConfirmedForm
        viewer={viewer}
        action={`${base}/redrive`}
        confirm={`Put ${queue.deadLetters === 1 ? 'the' : 'all'} ${dead} of ${queue.name} back in the queue?`}
      >
        <button type="submit" disabled={queue.deadLetters === 0}>
          {queue.deadLetters === 0
            ? 'No dead letters to redrive'
            : `Redrive ${queue.deadLetters === 1 ? 'the' : 'all'} ${dead}`}
        </button>
      </ConfirmedForm>
      <ActionForm viewer={viewer} action={`${base}/purge`} class="inline purge">
        <label for="purge-confirm">{`Type the queue name to purge ${tasks === 1 ? 'its' : 'all'} ${plural(tasks, 'task')}:`}</label>
        <input
          id="purge-confirm"
          name="confirm"
          autocomplete="off"
          data-confirm={queue.name}
          placeholder={queue.name}
        />
        <button type="submit" class="danger" data-confirm-button>
          Purge
        </button>
      </ActionForm>
    </div>
  );
}

const STATES: readonly TaskState[] = ['available', 'leased', 'delayed'];

/** The state filter's words on a push queue (the same three states of the row underneath). */
const PUSH_STATE_LABELS: Readonly<Record<TaskState, string>> = {
  available: 'waiting',
  leased: 'in flight or retrying',
  delayed: 'scheduled',
};

function TaskSection(props: {
  readonly viewer: Viewer;
  readonly base: string;
  readonly data: QueuePageData;
  readonly tasks: readonly Task[];
}) {
  const { viewer, base, data, tasks } = props;
  const push = data.overview.push !== undefined;
  return (
    <div>
      <div class="filters">
        <form method="get" action={base} class="filter">
          <label for="state">State</label>
          <select id="state" name="state">
            <option value="" selected={data.filter.state === null}>
              any
            </option>
            {STATES.map((state) => (
              <option value={state} selected={data.filter.state === state}>
                {push ? PUSH_STATE_LABELS[state] : state}
              </option>
            ))}
          </select>
          <label for="tag">Tag</label>
          <input id="tag" name="tag" value={data.filter.tag ?? ''} placeholder="any tag" />
          <button type="submit">Filter</button>
        </form>
        <form method="get" action={`${base}/tasks`} class="filter" role="search">
          <label for="task-name">Task name</label>
          <input id="task-name" name="name" required placeholder="exact name" autocomplete="off" />
          <button type="submit">Find</button>
        </form>
      </div>
      {/* Closed at first: the page leads with its tasks; a native disclosure needs no script. */}
      <details class="search">
        <summary>Search by name, tag, state, error or payload</summary>
        <TaskSearchFields base={base} push={push} />
      </details>
      {viewer.admin && (
        <BulkBar
          viewer={viewer}
          base={base}
          form="bulk-tasks"
          ops={
            push
              ? [
                  ['delete', 'Delete'],
                  ['run', 'Run now'],
                ]
              : [
                  ['delete', 'Delete'],
                  ['release', 'Release leases of'],
                  ['run', 'Run now'],
                ]
          }
        />
      )}
      {viewer.admin && data.filter.state !== 'available' && (
        <ActionForm viewer={viewer} action={`${base}/run-matching`} class="filter run-matching">
          {data.filter.state === 'leased' || data.filter.state === 'delayed' ? (
            <input type="hidden" name="state" value={data.filter.state} />
          ) : null}
          {data.filter.tag !== null && <input type="hidden" name="tag" value={data.filter.tag} />}
          <button type="submit" class="quiet" id="run-matching">
            Run all matching now…
          </button>
        </ActionForm>
      )}
      {push ? (
        <PushTasksTable viewer={viewer} base={base} tasks={tasks} nowMs={data.nowMs} />
      ) : (
        // Live (by id): the rows refresh with the figures, and a lease that ended shows so, without Release.
        <table class="tasks cards" id="tasks-table" data-live>
          <thead>
            <tr>
              {viewer.admin && (
                <th scope="col" class="select">
                  <input type="checkbox" data-select-all="bulk-tasks" aria-label="Select every task on this page" />
                </th>
              )}
              <th scope="col">Name</th>
              <th scope="col">State</th>
              <th scope="col">When</th>
              <th scope="col">Tag</th>
              <th class="num" scope="col">
                Retries
              </th>
              <th scope="col">Last error</th>
              <th scope="col">Payload</th>
              {viewer.admin && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {tasks.map((task) => {
              const state = taskStateOf(task, data.nowMs);
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
                    <span class={`badge state-${state}`}>{state}</span>
                  </td>
                  <td data-label="When">
                    <span class="hint">{etaMeaning(state, task.retryCount)}</span>{' '}
                    <When usec={task.etaUsec} nowMs={data.nowMs} />
                  </td>
                  <td data-label="Tag">{task.tag ?? ''}</td>
                  <td class="num" data-label="Retries">
                    {String(task.retryCount)}
                  </td>
                  <td class="last-error" data-label="Last error">
                    {task.lastError ?? ''}
                  </td>
                  <td data-label="Payload">
                    <Payload payload={task.payload} />
                  </td>
                  {viewer.admin && (
                    <td class="row-actions" data-label="Actions">
                      {state === 'leased' && (
                        // Goes when the lease ends (the client script), before the next refresh.
                        <span data-lease-ends={String(Math.floor(task.etaUsec / 1000))}>
                          <ConfirmedForm
                            viewer={viewer}
                            action={`${base}/release`}
                            confirm={`Release the lease on ${task.name}? Its worker loses it.`}
                          >
                            <input type="hidden" name="task" value={task.name} />
                            <button type="submit" class="quiet">
                              Release
                            </button>
                          </ConfirmedForm>
                        </span>
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
                    </td>
                  )}
                </tr>
              );
            })}
            {tasks.length === 0 && (
              <tr>
                <td colspan={viewer.admin ? 9 : 7}>No task matches.</td>
              </tr>
            )}
          </tbody>
        </table>
      )}
      {data.nextTasks && (
        <p>
          <a href={data.nextTasks}>Next page</a>
        </p>
      )}
    </div>
  );
}

function Tombstones(props: { readonly tombstones: readonly Tombstone[]; readonly nowMs: number }) {
  return (
    <div>
      <h2>Recent tombstones</h2>
      {/* Live like the figures: refreshed on the same tick, as fresh as the bar says. */}
      <table class="tombstones cards" id="tombstones-table" data-live>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Reason</th>
            <th scope="col">When</th>
            <th class="num" scope="col">
              Retries
            </th>
          </tr>
        </thead>
        <tbody>
          {props.tombstones.map((t) => (
            <tr>
              <td class="name" data-label="Name">
                {t.name}
              </td>
              <td data-label="Reason">{t.reason.replace('_', ' ')}</td>
              <td data-label="When">
                <When usec={t.deletedUsec} nowMs={props.nowMs} />
              </td>
              <td class="num" data-label="Retries">
                {String(t.retryCount)}
              </td>
            </tr>
          ))}
          {props.tombstones.length === 0 && (
            <tr>
              <td colspan={4}>No task has gone lately.</td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
