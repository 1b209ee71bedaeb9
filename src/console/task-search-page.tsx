import type { QueueOverview } from '../core/queue-overview.js';
import type { Task } from '../core/task.js';
import { SEARCH_SCAN_LIMIT } from '../core/task-search.js';
import type { AuditEntry } from '../core/audit-log.js';
import type { Viewer } from './console-viewer.js';
import { formatCount, plural } from './format.js';
import { Payload } from './payload-view.js';
import { pushEtaMeaning, pushStateClass, pushTaskStateOf } from './push-task-state.js';
import { QueueHeader } from './queue-header.js';
import type { TaskSearchForm } from './task-search-filter.js';
import { TaskSearchFields } from './task-search-form.js';
import { etaMeaning, taskStateOf } from './task-state.js';
import { When } from './when.js';

/** What the search page shows; the route gathers it from the core. */
export interface TaskSearchPageData {
  readonly overview: QueueOverview;
  readonly pausedBy: AuditEntry | null;
  readonly form: TaskSearchForm;
  /** Null when the search was refused (`problem` says why). */
  readonly result: {
    readonly tasks: readonly Task[];
    readonly scanned: number;
    readonly bounded: boolean;
    /** The URL of the search's next request, if more remain. */
    readonly next: string | null;
    /** This request went on from an earlier one. */
    readonly continued: boolean;
  } | null;
  readonly problem: string | null;
  readonly nowMs: number;
}

/**
 * A search of a queue's tasks: the form, filled, and one request's
 * results in the task table's style. A request reads at most
 * SEARCH_SCAN_LIMIT tasks; when it stops there, the page says so and
 * links the next request. Not refreshed: the page says when it searched.
 */
export function TaskSearchPage(props: { readonly viewer: Viewer; readonly data: TaskSearchPageData }) {
  const { viewer, data } = props;
  const base = `/console/queues/${encodeURIComponent(data.overview.name)}`;
  const push = data.overview.push !== undefined;
  const result = data.result;
  return (
    <section>
      <QueueHeader
        viewer={viewer}
        overview={data.overview}
        pausedBy={data.pausedBy}
        nowMs={data.nowMs}
        notice={null}
        tab="task"
      />
      <h2 id="search-heading">Search tasks</h2>
      <TaskSearchFields base={base} push={push} form={data.form} />
      {data.problem !== null && (
        <p class="error" role="alert" id="search-problem">
          {data.problem}
        </p>
      )}
      {result && (
        <>
          <p class="hint" id="search-summary">
            {summary(result)} Searched <When usec={data.nowMs * 1000} nowMs={data.nowMs} absolute />.
          </p>
          <ResultsTable base={base} tasks={result.tasks} push={push} nowMs={data.nowMs} />
          {result.next && (
            <p>
              <a href={result.next} id="search-next">
                {result.bounded ? `Search the next ${formatCount(SEARCH_SCAN_LIMIT)} tasks` : 'Next page'}
              </a>
            </p>
          )}
        </>
      )}
    </section>
  );
}

function summary(result: NonNullable<TaskSearchPageData['result']>): string {
  const found = plural(result.tasks.length, 'task');
  const from = result.continued ? ' from where the last request stopped' : '';
  if (result.bounded) {
    return `Found ${found} in ${formatCount(result.scanned)} tasks searched${from}; more remain: a request searches at most ${formatCount(SEARCH_SCAN_LIMIT)}, so a search over a large queue goes on request by request.`;
  }
  if (result.next) return `Found ${found}${from}; more may match.`;
  return result.tasks.length === 0 ? `No task matches${from}.` : `Found ${found}${from}.`;
}

function ResultsTable(props: {
  readonly base: string;
  readonly tasks: readonly Task[];
  readonly push: boolean;
  readonly nowMs: number;
}) {
  const { base, tasks, push, nowMs } = props;
  return (
    <table class={push ? 'tasks cards push' : 'tasks cards'} id="search-results" aria-labelledby="search-heading">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">State</th>
          <th scope="col">{push ? 'Next attempt' : 'When'}</th>
          <th scope="col">Tag</th>
          <th class="num" scope="col">
            {push ? 'Attempts' : 'Retries'}
          </th>
          <th scope="col">Last error</th>
          <th scope="col">{push ? 'Body' : 'Payload'}</th>
        </tr>
      </thead>
      <tbody>
        {tasks.map((task) => {
          const pushState = push ? pushTaskStateOf(task, nowMs) : null;
          const state = taskStateOf(task, nowMs);
          return (
            <tr data-task={task.name} data-state={pushState ?? state}>
              <td class="name" data-label="Name">
                <a href={`${base}/tasks/${encodeURIComponent(task.name)}`}>{task.name}</a>
              </td>
              <td data-label="State">
                <span class={`badge ${pushState ? pushStateClass(pushState) : `state-${state}`}`}>
                  {pushState ?? state}
                </span>
              </td>
              <td data-label={push ? 'Next attempt' : 'When'}>
                <span class="hint">{pushState ? pushEtaMeaning(pushState) : etaMeaning(state, task.retryCount)}</span>{' '}
                <When usec={task.etaUsec} nowMs={nowMs} />
              </td>
              <td data-label="Tag">{task.tag ?? ''}</td>
              <td class="num" data-label={push ? 'Attempts' : 'Retries'}>
                {String(task.retryCount)}
              </td>
              <td class="last-error" data-label="Last error">
                {task.lastError ?? ''}
              </td>
              <td data-label={push ? 'Body' : 'Payload'}>
                <Payload payload={task.payload} />
              </td>
            </tr>
          );
        })}
        {tasks.length === 0 && (
          <tr>
            <td colspan={7}>No task matches here.</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
