import type { QueueOverview } from '../core/queue-overview.js';
import { formatAge, formatBytes, formatCount } from './format.js';

/**
 * The queues at a glance, one row per queue the viewer may read. The page
 * renders it, and the client script fetches it again (/console/queues-table)
 * every few seconds to refresh the figures without reloading the page.
 */
export function QueuesTable(props: { readonly queues: readonly QueueOverview[]; readonly refreshSeconds: number }) {
  return (
    <table class="queues" id="queues-table" data-refresh="/console/queues-table" data-refresh-ms={String(props.refreshSeconds * 1000)}>
      <thead>
        <tr>
          <th>Queue</th>
          <th>Mode</th>
          <th>State</th>
          <th class="num">Available</th>
          <th class="num">Leased</th>
          <th class="num">Delayed</th>
          <th class="num">Oldest task</th>
          <th class="num">Leased 1 min</th>
          <th class="num">Leased 1 h</th>
          <th class="num">Dead letters</th>
          <th class="num">Storage</th>
          <th class="num">Retry limit</th>
          <th class="num">Lease rate</th>
        </tr>
      </thead>
      <tbody>
        {props.queues.map((q) => (
          <tr data-queue={q.name}>
            <td>
              <a href={`/console/queues/${encodeURIComponent(q.name)}`}>{q.name}</a>
            </td>
            <td>{q.mode}</td>
            <td>{q.paused ? <span class="badge paused">paused</span> : <span class="badge running">running</span>}</td>
            <td class="num">{formatCount(q.availableTasks)}</td>
            <td class="num">{formatCount(q.leasedTasks)}</td>
            <td class="num">{formatCount(q.delayedTasks)}</td>
            <td class="num">{formatAge(q.oldestAvailableAgeSeconds)}</td>
            <td class="num">{formatCount(q.leasedLastMinute)}</td>
            <td class="num">{formatCount(q.leasedLastHour)}</td>
            <td class="num">{q.deadLetters > 0 ? <span class="badge dead">{formatCount(q.deadLetters)}</span> : '0'}</td>
            <td class="num">
              {formatBytes(q.storageBytes)}
              {q.storageLimitBytes === null ? '' : ` / ${formatBytes(q.storageLimitBytes)}`}
            </td>
            <td class="num">{q.retryLimit === null ? 'none' : String(q.retryLimit)}</td>
            <td class="num">{q.leaseRate === null ? 'unlimited' : `${q.leaseRate.calls} / ${q.leaseRate.windowSeconds}s`}</td>
          </tr>
        ))}
        {props.queues.length === 0 && (
          <tr>
            <td colspan={13}>No queue to show.</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
