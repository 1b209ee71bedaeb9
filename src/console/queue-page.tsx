import type { DeadLetter } from '../core/dead-letter.js';
import type { QueueOverview } from '../core/queue-overview.js';
import type { Task } from '../core/task.js';
import type { TaskState } from '../core/task-store.js';
import type { Tombstone } from '../core/tombstone.js';
import type { Viewer } from './console-viewer.js';
import { formatAge, formatBytes, formatCount, formatUsec, previewPayload } from './format.js';

/** What the queue page shows; the route gathers it from the core. */
export interface QueuePageData {
  readonly overview: QueueOverview;
  /** Null when the viewer may read the queue but not list its tasks (an ACL writer). */
  readonly tasks: readonly Task[] | null;
  readonly filter: { readonly state: TaskState | null; readonly tag: string | null };
  /** The URL of the next page of tasks, if there is one. */
  readonly nextTasks: string | null;
  readonly tombstones: readonly Tombstone[] | null;
  readonly deadLetters: readonly DeadLetter[] | null;
  /** What the last action did (from the redirect after it), already worded. */
  readonly notice: string | null;
}

/**
 * One queue: its figures, charts of depth and lease rate over the last hour
 * (drawn by the client script from /console/queues/:queue/series.json), the
 * tasks (filtered by state and tag, a page at a time), recent tombstones and
 * dead letters; and for administrators, the actions.
 */
export function QueuePage(props: { readonly viewer: Viewer; readonly data: QueuePageData }) {
  const { viewer, data } = props;
  const q = data.overview;
  const base = `/console/queues/${encodeURIComponent(q.name)}`;
  return (
    <section>
      <p class="crumbs">
        <a href="/console">Queues</a> / {q.name}
      </p>
      <h1>
        {q.name} {q.paused ? <span class="badge paused">paused</span> : <span class="badge running">running</span>}
      </h1>
      {data.notice && (
        <p class="notice" role="status">
          {data.notice}
        </p>
      )}
      <dl class="figures">
        <Figure label="Available" value={formatCount(q.availableTasks)} />
        <Figure label="Leased" value={formatCount(q.leasedTasks)} />
        <Figure label="Delayed" value={formatCount(q.delayedTasks)} />
        <Figure label="Oldest task" value={formatAge(q.oldestAvailableAgeSeconds)} />
        <Figure label="Leased last minute" value={formatCount(q.leasedLastMinute)} />
        <Figure label="Leased last hour" value={formatCount(q.leasedLastHour)} />
        <Figure label="Dead letters" value={formatCount(q.deadLetters)} />
        <Figure
          label="Storage"
          value={`${formatBytes(q.storageBytes)}${q.storageLimitBytes === null ? '' : ` of ${formatBytes(q.storageLimitBytes)}`}`}
        />
      </dl>

      {viewer.admin && <Actions viewer={viewer} queue={q} base={base} />}

      <div class="charts">
        <figure>
          <figcaption>Tasks by state, last hour</figcaption>
          <div class="chart" data-chart="depth" data-series={`${base}/series.json`}></div>
        </figure>
        <figure>
          <figcaption>Tasks leased per minute, last hour</figcaption>
          <div class="chart" data-chart="lease-rate" data-series={`${base}/series.json`}></div>
        </figure>
      </div>

      <h2>Tasks</h2>
      {data.tasks === null ? (
        <p class="hint">Your access lets you see this queue's figures, not its tasks.</p>
      ) : (
        <TaskSection viewer={viewer} base={base} data={data} tasks={data.tasks} />
      )}

      {data.deadLetters !== null && <DeadLetters viewer={viewer} base={base} deadLetters={data.deadLetters} />}
      {data.tombstones !== null && <Tombstones tombstones={data.tombstones} />}
    </section>
  );
}

function Figure(props: { readonly label: string; readonly value: string }) {
  return (
    <div>
      <dt>{props.label}</dt>
      <dd>{props.value}</dd>
    </div>
  );
}

/** A POST form with the CSRF token: every action goes this way. */
function ActionForm(props: { readonly viewer: Viewer; readonly action: string; readonly children?: unknown; readonly class?: string }) {
  return (
    <form method="post" action={props.action} class={props.class ?? 'inline'}>
      <input type="hidden" name="_csrf" value={props.viewer.csrf} />
      {props.children}
    </form>
  );
}

function Actions(props: { readonly viewer: Viewer; readonly queue: QueueOverview; readonly base: string }) {
  const { viewer, queue, base } = props;
  return (
    <div class="actions" id="queue-actions">
      {queue.paused ? (
        <ActionForm viewer={viewer} action={`${base}/resume`}>
          <button type="submit">Resume</button>
        </ActionForm>
      ) : (
        <ActionForm viewer={viewer} action={`${base}/pause`}>
          <button type="submit">Pause</button>
        </ActionForm>
      )}
      <ActionForm viewer={viewer} action={`${base}/redrive`}>
        <button type="submit" disabled={queue.deadLetters === 0}>
          Redrive all dead letters
        </button>
      </ActionForm>
      <ActionForm viewer={viewer} action={`${base}/purge`} class="inline purge">
        <label for="purge-confirm">Type the queue name to purge every task:</label>
        <input id="purge-confirm" name="confirm" autocomplete="off" data-confirm={queue.name} placeholder={queue.name} />
        <button type="submit" class="danger" data-confirm-button>
          Purge
        </button>
      </ActionForm>
    </div>
  );
}

const STATES: readonly TaskState[] = ['available', 'leased', 'delayed'];

function TaskSection(props: { readonly viewer: Viewer; readonly base: string; readonly data: QueuePageData; readonly tasks: readonly Task[] }) {
  const { viewer, base, data, tasks } = props;
  return (
    <div>
      <form method="get" action={base} class="filter">
        <label for="state">State</label>
        <select id="state" name="state">
          <option value="" selected={data.filter.state === null}>
            any
          </option>
          {STATES.map((state) => (
            <option value={state} selected={data.filter.state === state}>
              {state}
            </option>
          ))}
        </select>
        <label for="tag">Tag</label>
        <input id="tag" name="tag" value={data.filter.tag ?? ''} placeholder="any tag" />
        <button type="submit">Filter</button>
      </form>
      <table class="tasks" id="tasks-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Tag</th>
            <th class="num">Retries</th>
            <th>ETA or lease expiry</th>
            <th>Last error</th>
            <th>Payload</th>
            {viewer.admin && <th></th>}
          </tr>
        </thead>
        <tbody>
          {tasks.map((task) => (
            <tr data-task={task.name}>
              <td class="name">{task.name}</td>
              <td>{task.tag ?? ''}</td>
              <td class="num">{String(task.retryCount)}</td>
              <td>
                {task.retryCount > 0 ? 'lease until ' : 'eta '}
                {formatUsec(task.etaUsec)}
              </td>
              <td class="last-error">{task.lastError ?? ''}</td>
              <td>
                <Payload payload={task.payload} />
              </td>
              {viewer.admin && (
                <td class="row-actions">
                  {task.retryCount > 0 && (
                    <ActionForm viewer={viewer} action={`${base}/release`}>
                      <input type="hidden" name="task" value={task.name} />
                      <button type="submit">Release lease</button>
                    </ActionForm>
                  )}
                  <ActionForm viewer={viewer} action={`${base}/delete`}>
                    <input type="hidden" name="task" value={task.name} />
                    <button type="submit" class="danger">
                      Delete
                    </button>
                  </ActionForm>
                </td>
              )}
            </tr>
          ))}
          {tasks.length === 0 && (
            <tr>
              <td colspan={7}>No task matches.</td>
            </tr>
          )}
        </tbody>
      </table>
      {data.nextTasks && (
        <p>
          <a href={data.nextTasks}>Next page</a>
        </p>
      )}
    </div>
  );
}

function Payload(props: { readonly payload: Uint8Array }) {
  const preview = previewPayload(props.payload);
  if (preview.kind === 'empty') return <span class="hint">empty</span>;
  return (
    <code class={`payload ${preview.kind}`}>
      {preview.text}
      {preview.truncated ? ' …' : ''}
    </code>
  );
}

function DeadLetters(props: { readonly viewer: Viewer; readonly base: string; readonly deadLetters: readonly DeadLetter[] }) {
  const { viewer, base, deadLetters } = props;
  return (
    <div>
      <h2>Dead letters</h2>
      <table class="dead-letters" id="dead-letters-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Tag</th>
            <th class="num">Retries</th>
            <th>Died</th>
            <th>Last error</th>
            <th>Payload</th>
            {viewer.admin && <th></th>}
          </tr>
        </thead>
        <tbody>
          {deadLetters.map((dead) => (
            <tr data-dead-letter={dead.name}>
              <td class="name">{dead.name}</td>
              <td>{dead.tag ?? ''}</td>
              <td class="num">{String(dead.retryCount)}</td>
              <td>{formatUsec(dead.diedUsec)}</td>
              <td class="last-error">{dead.lastError ?? ''}</td>
              <td>
                <Payload payload={dead.payload} />
              </td>
              {viewer.admin && (
                <td class="row-actions">
                  <ActionForm viewer={viewer} action={`${base}/redrive`}>
                    <input type="hidden" name="task" value={dead.name} />
                    <button type="submit">Redrive</button>
                  </ActionForm>
                </td>
              )}
            </tr>
          ))}
          {deadLetters.length === 0 && (
            <tr>
              <td colspan={7}>No dead letters.</td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

function Tombstones(props: { readonly tombstones: readonly Tombstone[] }) {
  return (
    <div>
      <h2>Recent tombstones</h2>
      <table class="tombstones" id="tombstones-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Reason</th>
            <th>When</th>
            <th class="num">Retries</th>
          </tr>
        </thead>
        <tbody>
          {props.tombstones.map((t) => (
            <tr>
              <td class="name">{t.name}</td>
              <td>{t.reason.replace('_', ' ')}</td>
              <td>{formatUsec(t.deletedUsec)}</td>
              <td class="num">{String(t.retryCount)}</td>
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
