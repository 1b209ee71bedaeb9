import { Age } from './age.js';
import { formatBytes, formatCount, plural, storagePercent } from './format.js';
import { formatPushRate } from './push-rate.js';
import { STORAGE_WARNING_PERCENT, summarize, type QueueSummary, type TriagedQueue } from './queue-triage.js';

/**
 * The queues at a glance: a summary line, then one row per queue the viewer
 * may read, ranked by the triage (queue-triage.ts). The client script
 * fetches the page again at the page's refresh rate and swaps this element
 * in when it changed (its id marks it live), keeping the viewer's sort and
 * name filter; a cell whose text does not sort as it reads carries the
 * value it sorts by (`data-sort`), a row its triage rank (`data-rank`).
 * Each problem is a badge followed by its figures in words. Push queues
 * carry a badge and their dispatch (rate and requests in flight) in the
 * last column; the lease counts are a dash on a push queue: nothing leases
 * its tasks. With 131 queues the page stays under 90 KB: the phone
 * layout's field labels come from the stylesheet, not from every cell.
 */
export function QueuesTable(props: {
  readonly queues: readonly TriagedQueue[];
  readonly filter: string;
  /** When the figures were read (epoch ms): the ages count from it. */
  readonly nowMs: number;
}) {
  const shown = props.queues;
  return (
    <div id="queues-live" data-live>
      <Summary summary={summarize(shown)} filter={props.filter} />
      <table class="queues cards" id="queues-table" data-sortable>
        <thead>
          <tr>
            <SortHeader label="Queue" sortKey="name" />
            <SortHeader label="Attention" sortKey="problems" num />
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
          {shown.map(({ overview: q, flags, score }, rank) => {
            const percent = storagePercent(q.storageBytes, q.storageLimitBytes);
            return (
              <tr
                data-queue={q.name}
                data-rank={String(rank)}
                data-problems={String(flags.length)}
                class={flags.some((f) => f.problem !== 'paused') ? 'problem' : undefined}
              >
                <td class="queue-name">
                  <a href={`/console/queues/${encodeURIComponent(q.name)}`}>{q.name}</a>{' '}
                  {q.push ? <span class="badge mode-push">push</span> : <span class="hint">{q.mode}</span>}
                </td>
                <td class="attention" data-sort={String(score)}>
                  {flags.length === 0 ? (
                    <span class="badge running">ok</span>
                  ) : (
                    flags.map((f) => (
                      <span class="flag">
                        <span class={`badge ${f.problem === 'paused' ? 'paused' : 'dead'}`}>{f.problem}</span>
                        {f.problem !== 'paused' && <span class="why">{f.detail}</span>}
                      </span>
                    ))
                  )}
                </td>
                <td class="num">{formatCount(q.availableTasks)}</td>
                <td class="num">{formatCount(q.leasedTasks)}</td>
                <td class="num">{formatCount(q.delayedTasks)}</td>
                <td class="num" data-sort={oldestSort(q.oldestAvailableAgeSeconds, props.nowMs)}>
                  <Age seconds={q.oldestAvailableAgeSeconds} nowMs={props.nowMs} />
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

/**
 * The oldest task sorts by when it became available, negated (the oldest
 * has the biggest number, as "biggest first" wants), to the second: the
 * same from one refresh to the next. None sorts below every queue.
 */
function oldestSort(ageSeconds: number | null, nowMs: number): string {
  return ageSeconds === null ? '-1e15' : String(-Math.round(nowMs / 1000 - ageSeconds));
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

/**
 * Not a live region: the table around it is swapped on every refresh that
 * changed something, and a screen reader would read it out each time. The
 * client script announces the line (#announce) only when it changes.
 */
function Summary(props: { readonly summary: QueueSummary; readonly filter: string }) {
  const s = props.summary;
  const parts = s.problems.map(([problem, queues]) => `${problem} in ${plural(queues, 'queue')}`);
  return (
    <p class={`summary${parts.length > 0 ? ' attention' : ''}`} id="queues-summary" data-announce>
      {`${plural(s.queues, 'queue')}${props.filter === '' ? '' : ' matching'}, ${plural(s.waiting, 'task')}, ${plural(s.deadLetters, 'dead letter')}. `}
      {parts.length === 0 ? 'Nothing needs attention.' : `Needs attention: ${parts.join('; ')}.`}
    </p>
  );
}
