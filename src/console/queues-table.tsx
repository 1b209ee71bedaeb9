import type { QueueOverview } from '../core/queue-overview.js';
import { formatAge, formatBytes, formatCount, plural, storagePercent } from './format.js';
import { formatPushRate } from './push-rate.js';
import { problemsOf, STORAGE_WARNING_PERCENT, summarize, triage, type QueueSummary } from './queue-triage.js';

/**
 * The queues at a glance: a summary line, then one row per queue the viewer
 * may read, problem queues first. The client script fetches the page again
 * at the page's refresh rate and swaps this element in (its id marks it
 * live), keeping the viewer's column sort and name filter; a cell whose
 * text does not sort as it reads carries the value it sorts by
 * (`data-sort`). Push queues carry a badge and their dispatch (rate and
 * requests in flight) in the last column; pull queues leave it empty. The
 * lease counts of the last minute and hour are a dash on a push queue:
 * nothing leases its tasks (deliveries are in its flight and metrics).
 * With 131 queues the page stays under 90 KB: the phone
 * layout's field labels come from the stylesheet, not from every cell.
 */
export function QueuesTable(props: { readonly queues: readonly QueueOverview[]; readonly filter: string }) {
  const shown = triage(props.queues);
  return (
    <div id="queues-live" data-live>
      <Summary summary={summarize(props.queues)} filter={props.filter} />
      <table class="queues cards" id="queues-table" data-sortable>
        <thead>
          <tr>
            <SortHeader label="Queue" sortKey="name" />
            <SortHeader label="Attention" sortKey="problems" />
            <SortHeader label="Available" sortKey="available" num />
            <SortHeader label="Leased" sortKey="leased" num />
            <SortHeader label="Delayed" sortKey="delayed" num />
            <SortHeader label="Oldest task" sortKey="oldest" num />
            <SortHeader label="Leased 1 min" sortKey="rate1m" num />
            <SortHeader label="Leased 1 h" sortKey="rate1h" num />
            <SortHeader label="Dead letters" sortKey="dead" num />
            <SortHeader label="Storage" sortKey="storage" num />
            <SortHeader label="Push" sortKey="push" num />
          </tr>
        </thead>
        <tbody>
          {shown.map((q) => {
            const problems = problemsOf(q);
            const percent = storagePercent(q.storageBytes, q.storageLimitBytes);
            return (
              <tr
                data-queue={q.name}
                data-problems={String(problems.length)}
                class={problems.length > 0 ? 'problem' : undefined}
              >
                <td>
                  <a href={`/console/queues/${encodeURIComponent(q.name)}`}>{q.name}</a>{' '}
                  {q.push ? <span class="badge mode-push">push</span> : <span class="hint">{q.mode}</span>}
                </td>
                <td data-sort={String(problems.length)}>
                  {problems.length === 0 ? (
                    <span class="badge running">ok</span>
                  ) : (
                    problems.map((p) => <span class={`badge ${p === 'paused' ? 'paused' : 'dead'}`}>{p}</span>)
                  )}
                </td>
                <td class="num">{formatCount(q.availableTasks)}</td>
                <td class="num">{formatCount(q.leasedTasks)}</td>
                <td class="num">{formatCount(q.delayedTasks)}</td>
                <td class="num" data-sort={String(q.oldestAvailableAgeSeconds ?? -1)}>
                  {formatAge(q.oldestAvailableAgeSeconds)}
                </td>
                <LeaseCount push={q.push !== undefined} count={q.leasedLastMinute} />
                <LeaseCount push={q.push !== undefined} count={q.leasedLastHour} />
                <td class="num">
                  {q.deadLetters > 0 ? (
                    <a class="badge dead" href={`/console/queues/${encodeURIComponent(q.name)}/dead-letters`}>
                      {formatCount(q.deadLetters)}
                    </a>
                  ) : (
                    '0'
                  )}
                </td>
                <td class="num" data-sort={String(percent ?? -1)}>
                  {formatBytes(q.storageBytes)}
                  {percent !== null && (
                    <>
                      {' '}
                      <span
                        class={percent >= STORAGE_WARNING_PERCENT ? 'badge dead' : 'hint'}
                        title={`of ${formatBytes(q.storageLimitBytes ?? 0)}`}
                      >
                        {`${percent}%`}
                      </span>
                    </>
                  )}
                </td>
                <td class="num push-dispatch" data-sort={String(q.push ? q.push.inFlight : -1)}>
                  {q.push ? `${formatPushRate(q.push.ratePerSecond)}, ${formatCount(q.push.inFlight)} in flight` : ''}
                </td>
              </tr>
            );
          })}
          {shown.length === 0 && (
            <tr>
              <td colspan={11}>
                {props.filter === '' ? 'No queue to show.' : `No queue name contains "${props.filter}".`}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

/** A lease count of the last minute or hour; a dash on a push queue, sorted below every pull queue's count. */
function LeaseCount(props: { readonly push: boolean; readonly count: number }) {
  if (props.push) {
    return (
      <td class="num" data-sort="-1" title="Push queues are delivered, not leased">
        -
      </td>
    );
  }
  return <td class="num">{formatCount(props.count)}</td>;
}

/** A column header that sorts (by the client script; aria-sort says how). */
function SortHeader(props: { readonly label: string; readonly sortKey: string; readonly num?: boolean }) {
  return (
    <th class={props.num ? 'num' : undefined} data-sort-key={props.sortKey} scope="col">
      <button type="button" class="sort" data-sort-by={props.sortKey}>
        {props.label}
      </button>
    </th>
  );
}

function Summary(props: { readonly summary: QueueSummary; readonly filter: string }) {
  const s = props.summary;
  const parts: string[] = [];
  if (s.withDeadLetters > 0)
    parts.push(`${plural(s.deadLetters, 'dead letter')} in ${plural(s.withDeadLetters, 'queue')}`);
  if (s.nearStorageLimit > 0) parts.push(`${s.nearStorageLimit} near the storage limit`);
  if (s.oldTasks > 0) parts.push(`${s.oldTasks} with old tasks`);
  if (s.paused > 0) parts.push(`${s.paused} paused`);
  return (
    <p class={`summary${parts.length > 0 ? ' attention' : ''}`} id="queues-summary" role="status">
      {`${plural(s.queues, 'queue')}${props.filter === '' ? '' : ' matching'}, ${plural(s.waiting, 'task')}. `}
      {parts.length === 0 ? 'Nothing needs attention.' : `Needs attention: ${parts.join(', ')}.`}
    </p>
  );
}
