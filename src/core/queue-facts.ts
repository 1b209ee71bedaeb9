import { DEFAULT_PUSH_SETTINGS, routeOfTarget, type QueueConfig, type TargetRoutes } from './queue-config.js';

/**
 * A queue's effective settings in words, in the terms of its mode: a pull
 * queue's leases, lease rate and ACL; a push queue's rate, bucket, requests
 * in flight, where its tasks go, age limit, backoff and retries. check-config
 * prints them and the service logs them at start, so what a limit of 0 or a
 * target does is read, not guessed.
 */
export function queueFacts(queue: QueueConfig, routes: TargetRoutes = new Map()): string[] {
  return queue.mode === 'push' ? pushFacts(queue, routes) : pullFacts(queue);
}

function pullFacts(queue: QueueConfig): string[] {
  const facts = ['pull', leaseLimit(queue.maxLeases)];
  facts.push(
    queue.leaseRate === null
      ? 'lease rate unlimited'
      : `lease rate ${queue.leaseRate.calls}/${queue.leaseRate.windowSeconds}s`,
  );
  if (queue.storageLimitBytes !== null) facts.push(`storage limit ${queue.storageLimitBytes} B`);
  if (queue.acl.userEmails.length + queue.acl.writerEmails.length > 0) {
    facts.push(`acl ${queue.acl.userEmails.length} user(s), ${queue.acl.writerEmails.length} writer(s)`);
  }
  return facts;
}

function leaseLimit(maxLeases: number | null): string {
  if (maxLeases === null) return 'leases unlimited';
  if (maxLeases === 0)
    return 'retry limit 0: never leased, each task goes to the dead letters at its first lease attempt (App Engine)';
  return `at most ${maxLeases} lease(s)`;
}

function pushFacts(queue: QueueConfig, routes: TargetRoutes): string[] {
  const push = queue.push ?? DEFAULT_PUSH_SETTINGS;
  const { retry } = queue;
  const facts = [
    'push',
    `rate ${push.ratePerSecond}/s`,
    `bucket size ${push.bucketSize}`,
    push.maxConcurrentRequests === null ? 'max concurrent unlimited' : `max concurrent ${push.maxConcurrentRequests}`,
    destination(push, routes),
    retries(queue.maxLeases, retry.ageLimitSeconds),
    `backoff ${retry.minBackoffSeconds}-${retry.maxBackoffSeconds} s, ${retry.maxDoublings} doubling(s)`,
  ];
  if (queue.storageLimitBytes !== null) facts.push(`storage limit ${queue.storageLimitBytes} B`);
  return facts;
}

function destination(push: typeof DEFAULT_PUSH_SETTINGS, routes: TargetRoutes): string {
  const target = push.target === null ? '' : `target ${push.target} `;
  if (push.targetUrl !== null) return `${target}to ${push.targetUrl} (target-url)`.trim();
  if (push.target !== null) {
    const route = routeOfTarget(push.target, routes);
    if (route !== null) return `target ${push.target} to ${route} (TASKQUEUE_TARGET_URLS)`;
    return `target ${push.target} has no route in TASKQUEUE_TARGET_URLS: to ${push.baseUrl ?? 'TASKQUEUE_PUSH_BASE_URL (not set here)'}`;
  }
  return `to ${push.baseUrl ?? 'TASKQUEUE_PUSH_BASE_URL (not set here)'}`;
}

/** App Engine's rule (mayRetry): with both limits, a task is retried while either allows it. */
function retries(limit: number | null, ageLimitSeconds: number | null): string {
  const count =
    limit === null ? null : limit === 0 ? 'no retry (one attempt)' : `up to ${limit} retries (${limit + 1} attempts)`;
  if (ageLimitSeconds === null) return count ?? 'retries unlimited';
  if (count === null) return `retried until ${ageLimitSeconds} s after the first attempt`;
  return `${count}, or more while under ${ageLimitSeconds} s since the first attempt`;
}
