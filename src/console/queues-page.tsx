import type { TriageThresholds } from '../core/triage-thresholds.js';
import { formatCount } from './format.js';
import { formatDuration } from './queue-triage.js';
import type { QueuesData } from './queues-data.js';
import { QueuesTable } from './queues-table.js';

/** The orders the "Sort by" choice offers (the column headers sort too); `rank` is the triage's. */
const SORTS: ReadonlyArray<readonly [string, string]> = [
  ['rank', 'what needs attention'],
  ['name', 'name'],
  ['available', 'available tasks'],
  ['oldest', 'oldest task'],
  ['dead', 'dead letters'],
  ['storage', 'storage'],
];

/** The start page: every queue the viewer may read, ranked by what needs a human now, refreshing itself. */
export function QueuesPage(props: {
  readonly data: QueuesData;
  readonly thresholds: TriageThresholds;
  readonly nowMs: number;
}) {
  return (
    <section>
      <h1>Queues</h1>
      <div class="filters">
        <form method="get" action="/console" class="filter" role="search">
          <label for="queue-filter">Name contains</label>
          <input
            id="queue-filter"
            type="search"
            name="q"
            value={props.data.filter}
            autocomplete="off"
            data-filter-table="queues-table"
          />
          <button type="submit">Filter</button>
        </form>
        {/* Shown by the script, which does the sorting (the column headers are hidden on a phone). */}
        <p class="filter" hidden>
          <label for="queues-sort">Sort by</label>
          <select id="queues-sort" data-sort-table="queues-table">
            {SORTS.map(([key, label]) => (
              <option value={key}>{label}</option>
            ))}
          </select>
        </p>
      </div>
      <QueuesTable queues={props.data.queues} filter={props.data.filter} nowMs={props.nowMs} />
      <Thresholds t={props.thresholds} />
    </section>
  );
}

/** What the ranking flags, in the numbers in force (TASKQUEUE_CONSOLE_TRIAGE changes them). */
function Thresholds(props: { readonly t: TriageThresholds }) {
  const { t } = props;
  return (
    <details class="thresholds" id="triage-thresholds">
      <summary>How queues are ranked</summary>
      <p>
        Queues that need a human now come first, most urgent problem first; the others follow in configuration order.
      </p>
      <ol>
        <li>
          <strong>failing deliveries</strong>: a push task whose last attempt failed, still undelivered{' '}
          {formatDuration(t.pushFailingSeconds)} after its first attempt (<code>push-failing</code>)
        </li>
        <li>
          <strong>no target URL</strong>: a push queue with tasks but no <code>&lt;target-url&gt;</code> and no{' '}
          <code>TASKQUEUE_PUSH_BASE_URL</code>
        </li>
        <li>
          <strong>stuck leases</strong>: leases held by workers that stopped
        </li>
        <li>
          <strong>dead letters arriving</strong>: a task died in the last {formatDuration(t.deadLetterSeconds)} (
          <code>dead-letters</code>); older dead letters are history, in their column
        </li>
        <li>
          <strong>backlog growing</strong>: {formatCount(t.backlogGrowthTasks)} more available tasks than{' '}
          {formatDuration(t.backlogWindowSeconds)} ago (<code>backlog-growth</code>, <code>backlog-window</code>);{' '}
          <strong>backlog</strong>: {formatCount(t.backlogTasks)} available tasks or more (<code>backlog</code>)
        </li>
        <li>
          <strong>storage</strong>: 80% of the queue's storage limit or more
        </li>
        <li>
          <strong>stalled</strong>: an available task waiting {formatDuration(t.stalledSeconds)} or more in a queue that
          is not paused (<code>stalled</code>)
        </li>
        <li>
          <strong>paused</strong>
        </li>
      </ol>
      <p class="hint">
        Change them with <code>TASKQUEUE_CONSOLE_TRIAGE</code>, e.g.{' '}
        <code>push-failing=10m,backlog=50000,dead-letters=30m</code> (docs/console.md).
      </p>
    </details>
  );
}
