import { PUSH_LIMITS, type PushRequest, type TaskRetryRules } from '../core/push/push-task.js';
import { deliveryUrl } from '../core/push/push-url.js';
import type { Task } from '../core/task.js';
import { formatAge } from './format.js';
import { maskHeaders } from '../core/push/mask-headers.js';

/**
 * The delivery part of a push task's page (the rows of its details list):
 * its request (method, url and where that resolves, headers with secret
 * values masked, deadline, retry rules) and its delivery so far (attempts,
 * responses, last status). The body is shown below as a pull task's
 * payload is.
 */
export function PushRequestDetails(props: {
  readonly task: Task;
  readonly request: PushRequest;
  readonly targetUrl: string | null;
}) {
  const { task, request } = props;
  const delivery = task.delivery;
  const headers = maskHeaders(request.headers);
  const deliveredTo = props.targetUrl === null ? null : deliveryUrl(props.targetUrl, request.url);
  return (
    <>
      <dt>Request</dt>
      <dd>
        <code id="push-request">{`${request.method} ${request.url}`}</code>
      </dd>
      <dt>Delivered to</dt>
      <dd>
        {props.targetUrl === null ? (
          <span class="hint">nowhere yet: the queue has no target URL</span>
        ) : deliveredTo === null ? (
          <span class="hint">nowhere: its path climbs out of the queue's target URL</span>
        ) : (
          <code>{deliveredTo}</code>
        )}
      </dd>
      <dt>Headers</dt>
      <dd id="push-headers">
        {headers.length === 0 ? (
          <span class="hint">none of its own</span>
        ) : (
          <ul class="headers">
            {headers.map(([name, value]) => (
              <li>
                <code>{`${name}: ${value}`}</code>
              </li>
            ))}
          </ul>
        )}
      </dd>
      <dt>Deadline</dt>
      <dd>{formatAge(request.deadlineSeconds ?? PUSH_LIMITS.defaultDeadlineSeconds)}</dd>
      <dt>Retry rules</dt>
      <dd>{request.retry === null ? <span class="hint">the queue's</span> : retryWords(request.retry)}</dd>
      <dt>Attempts</dt>
      <dd>{`${task.retryCount} so far, ${delivery?.executionCount ?? 0} with a response`}</dd>
      <dt>Last status</dt>
      <dd class="last-status">
        {delivery?.lastStatus === null || delivery?.lastStatus === undefined ? (
          <span class="hint">none</span>
        ) : (
          String(delivery.lastStatus)
        )}
      </dd>
    </>
  );
}

/** A task's own retry rules in words: `3 retries, backoff 0.1 s to 1h 0m 0s, 16 doublings, age limit 1d 0h`. */
function retryWords(rules: TaskRetryRules): string {
  const p = rules.parameters;
  const parts = [
    rules.retryLimit === null ? 'no retry limit' : `${rules.retryLimit} retr${rules.retryLimit === 1 ? 'y' : 'ies'}`,
    `backoff ${p.minBackoffSeconds} s to ${p.maxBackoffSeconds} s`,
    `${p.maxDoublings} doublings`,
    p.ageLimitSeconds === null ? 'no age limit' : `age limit ${formatAge(p.ageLimitSeconds)}`,
  ];
  return parts.join(', ');
}
