import type { PushQueueOverview } from '../core/queue-overview.js';
import { formatCount } from './format.js';
import { formatPushRate, formatTokens } from './push-rate.js';
import { When } from './when.js';

/**
 * A push queue's dispatch figures, beside its task counts: the settings the
 * servers last wrote (rate, bucket, concurrency, target) and the state
 * every process shares in the database (tokens now, requests in flight, a
 * 503 slow-down or a Retry-After hold).
 */
export function PushFigures(props: { readonly push: PushQueueOverview; readonly nowMs: number }) {
  const p = props.push;
  const full = p.maxConcurrentRequests !== null && p.inFlight >= p.maxConcurrentRequests;
  return (
    <>
      <Figure label="Rate" value={formatPushRate(p.ratePerSecond)} />
      <Figure label="Bucket size" value={formatCount(p.bucketSize)} />
      <Figure label="Tokens now" value={formatTokens(p.tokens, p.bucketSize)} />
      <Figure
        label="Max concurrent"
        value={p.maxConcurrentRequests === null ? 'unlimited' : formatCount(p.maxConcurrentRequests)}
      />
      <Figure label="In flight" value={formatCount(p.inFlight)} warn={full} />
      {p.target !== null && <Figure label="App Engine target" value={p.target} />}
      <Figure
        label="Target"
        value={p.targetUrl ?? 'none: set <target-url>, TASKQUEUE_TARGET_URLS or TASKQUEUE_PUSH_BASE_URL'}
        warn={p.targetUrl === null}
        wide
      />
      {p.heldUntilUsec !== null && (
        <div class="warn" id="push-held">
          <dt>Held (Retry-After) until</dt>
          <dd>
            <When usec={p.heldUntilUsec} nowMs={props.nowMs} />
          </dd>
        </div>
      )}
      {p.slowedUntilUsec !== null && (
        <div class="warn" id="push-slowed">
          <dt>Half rate (after a 503) until</dt>
          <dd>
            <When usec={p.slowedUntilUsec} nowMs={props.nowMs} />
          </dd>
        </div>
      )}
    </>
  );
}

function Figure(props: {
  readonly label: string;
  readonly value: string;
  readonly warn?: boolean;
  readonly wide?: boolean;
}) {
  const cls = [props.warn ? 'warn' : '', props.wide ? 'wide' : ''].filter((c) => c !== '').join(' ');
  return (
    <div class={cls === '' ? undefined : cls}>
      <dt>{props.label}</dt>
      <dd>{props.value}</dd>
    </div>
  );
}
