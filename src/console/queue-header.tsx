import type { AuditEntry } from '../core/audit-log.js';
import type { QueueOverview } from '../core/queue-overview.js';
import type { Viewer } from './console-viewer.js';
import type { Child } from 'hono/jsx';
import { Age } from './age.js';
import { formatBytes, formatCount, storagePercent } from './format.js';
import { PushFigures } from './push-figures.js';
import { STORAGE_WARNING_PERCENT } from './queue-triage.js';
import { When } from './when.js';

/**
 * The top of a queue's pages: name and state (and who paused it, when),
 * the notice of the last action, the figures (a live part of the page,
 * refreshed with the charts; left out of the task page, which does not
 * refresh) and the tabs. A push queue's figures name its tasks' states
 * as delivery words them and add its dispatch (push-figures.tsx); the
 * lease figures, which push deliveries do not count in, are left out.
 */
export function QueueHeader(props: {
  readonly viewer: Viewer;
  readonly overview: QueueOverview;
  readonly pausedBy: AuditEntry | null;
  readonly nowMs: number;
  readonly notice: string | null;
  readonly tab: 'tasks' | 'dead-letters' | 'task';
}) {
  const q = props.overview;
  const base = `/console/queues/${encodeURIComponent(q.name)}`;
  const percent = storagePercent(q.storageBytes, q.storageLimitBytes);
  const push = q.push;
  const stops = push
    ? 'nothing is dispatched until it is resumed (adds are accepted; requests in flight finish)'
    : 'leases return no tasks until it is resumed';
  return (
    <>
      <p class="crumbs">
        <a href="/console">Queues</a> / {props.tab === 'task' ? <a href={base}>{q.name}</a> : q.name}
      </p>
      <div id="queue-live" data-live={props.tab === 'task' ? undefined : true}>
        <h1>
          {q.name} {push && <span class="badge mode-push">push</span>}
          {q.paused ? <span class="badge paused">paused</span> : <span class="badge running">running</span>}
        </h1>
        {q.paused && (
          <p class="paused-by" id="paused-by">
            {props.pausedBy ? (
              <>
                {`Paused by ${props.pausedBy.actor} (${props.pausedBy.source}) `}
                <When usec={props.pausedBy.atUsec} nowMs={props.nowMs} />
                {`: ${stops}.`}
              </>
            ) : (
              `Paused (the audit log does not say by whom): ${stops}.`
            )}
          </p>
        )}
        {props.notice && (
          <p class="notice" role="status">
            {props.notice}
          </p>
        )}
        {/* A page that does not refresh shows no figures: they would go stale without a word. */}
        {props.tab !== 'task' && (
          <dl class="figures" id="queue-figures">
            <Figure label={push ? 'Waiting' : 'Available'} value={formatCount(q.availableTasks)} />
            <Figure label={push ? 'In flight or retrying' : 'Leased'} value={formatCount(q.leasedTasks)} />
            <Figure label={push ? 'Scheduled' : 'Delayed'} value={formatCount(q.delayedTasks)} />
            <Figure label="Oldest task" value={<Age seconds={q.oldestAvailableAgeSeconds} nowMs={props.nowMs} />} />
            {!push && <Figure label="Leased last minute" value={formatCount(q.leasedLastMinute)} />}
            {!push && <Figure label="Leased last hour" value={formatCount(q.leasedLastHour)} />}
            <Figure label="Dead letters" value={formatCount(q.deadLetters)} warn={q.deadLetters > 0} />
            <Figure
              label="Storage"
              value={`${formatBytes(q.storageBytes)}${q.storageLimitBytes === null ? '' : ` of ${formatBytes(q.storageLimitBytes)} (${percent}%)`}`}
              warn={percent !== null && percent >= STORAGE_WARNING_PERCENT}
            />
            <Figure label="Retry limit" value={q.retryLimit === null ? 'none' : String(q.retryLimit)} />
            {push ? (
              <PushFigures push={push} nowMs={props.nowMs} />
            ) : (
              <Figure
                label="Lease rate"
                value={q.leaseRate === null ? 'unlimited' : `${q.leaseRate.calls} / ${q.leaseRate.windowSeconds} s`}
              />
            )}
          </dl>
        )}
      </div>
      <nav class="tabs" aria-label="Queue">
        <a href={base} aria-current={props.tab === 'tasks' ? 'page' : undefined}>
          Tasks
        </a>
        <a href={`${base}/dead-letters`} aria-current={props.tab === 'dead-letters' ? 'page' : undefined}>
          {`Dead letters (${formatCount(q.deadLetters)})`}
        </a>
      </nav>
    </>
  );
}

function Figure(props: { readonly label: string; readonly value: Child; readonly warn?: boolean }) {
  return (
    <div class={props.warn ? 'warn' : undefined}>
      <dt>{props.label}</dt>
      <dd>{props.value}</dd>
    </div>
  );
}
