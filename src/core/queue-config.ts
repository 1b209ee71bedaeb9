/**
 * Validated queue configuration, as read from queue.xml or queue.yaml.
 * Everything here is plain readonly data: `config/` builds it, the rest of the
 * service only reads it.
 */

/** The name of the queue that always exists, configured or not. */
export const DEFAULT_QUEUE_NAME = 'default';

/** App Engine's queue-name rule (taskqueue.py `_QUEUE_NAME_PATTERN`). */
export const QUEUE_NAME_PATTERN = /^[a-zA-Z0-9-]{1,100}$/;

export type QueueMode = 'pull' | 'push';

/** How many lease calls per window may return tasks; `null` means unlimited. */
export interface LeaseRate {
  /** Calls allowed per window. */
  readonly calls: number;
  /** Window length in seconds (1 for `20/s`, 60 for `600/m`, 3600 for `/h`, 86400 for `/d`). */
  readonly windowSeconds: number;
}

/** Lease rate of a queue that sets none: 10 lease calls per second return tasks (spec section 8). */
export const DEFAULT_LEASE_RATE: LeaseRate = { calls: 10, windowSeconds: 1 };

export interface QueueAcl {
  /** `<user-email>`: may lease, get, list, update, patch and delete. */
  readonly userEmails: readonly string[];
  /** `<writer-email>`: may insert. */
  readonly writerEmails: readonly string[];
}

/**
 * `<retry-parameters>` besides `<task-retry-limit>` (which stays `maxLeases`):
 * how long a failed task waits before it is tried again, and for push
 * queues how old it may grow. Pull queues use the backoff for failed tasks
 * (a worker's failure sets the lease to the backoff delay).
 */
export interface RetryParameters {
  /** `<task-age-limit>` in seconds, measured from the first attempt; null = none. Push queues only. */
  readonly ageLimitSeconds: number | null;
  /** `<min-backoff-seconds>`: the first retry's delay. */
  readonly minBackoffSeconds: number;
  /** `<max-backoff-seconds>`: no delay is longer. */
  readonly maxBackoffSeconds: number;
  /** `<max-doublings>`: how often the delay doubles before it grows linearly. */
  readonly maxDoublings: number;
}

/** App Engine's defaults (taskqueue_service.proto `TaskQueueRetryParameters`). */
export const DEFAULT_RETRY_PARAMETERS: RetryParameters = {
  ageLimitSeconds: null,
  minBackoffSeconds: 0.1,
  maxBackoffSeconds: 3600,
  maxDoublings: 16,
};

export interface QueueConfig {
  readonly name: string;
  readonly mode: QueueMode;
  /** `<retry-parameters><task-retry-limit>`: a task may be leased at most this often; null = unlimited. */
  readonly maxLeases: number | null;
  /** Extension `<storage-limit>` inside `<queue>`, in bytes; null = none. */
  readonly storageLimitBytes: number | null;
  /** Extension `<lease-rate>`: `20/s`, `600/m` or `unlimited` (null). */
  readonly leaseRate: LeaseRate | null;
  /** The rest of `<retry-parameters>`; DEFAULT_RETRY_PARAMETERS when the file sets none. */
  readonly retry: RetryParameters;
  readonly acl: QueueAcl;
  /** How a push queue delivers (see push-queue.ts); absent on pull queues, and on push queues built by hand (the defaults then). */
  readonly push?: PushQueueSettings;
  /**
   * Who defines the queue: absent for the file's (queue.xml / queue.yaml),
   * `api` for one made through the Cloud Tasks API (stored in the database,
   * changed only through the API; api-queues.ts).
   */
  readonly origin?: 'api';
  /**
   * Settings of an API-made queue that the queue model keeps and returns
   * without acting on them (Cloud Tasks' appEngineRoutingOverride,
   * stackdriverLoggingConfig), in their wire form.
   */
  readonly apiExtras?: Readonly<Record<string, unknown>>;
}

/** A push queue's delivery settings: `<rate>`, `<bucket-size>`, `<max-concurrent-requests>`, `<target-url>`, `<target>`. */
export interface PushQueueSettings {
  /** `<rate>` as tasks per second; 0 = nothing is dispatched. */
  readonly ratePerSecond: number;
  /** `<bucket-size>`: tokens the bucket holds, so the largest burst. */
  readonly bucketSize: number;
  /** `<max-concurrent-requests>`: requests in flight at most, across every process; null = unlimited. */
  readonly maxConcurrentRequests: number | null;
  /** Extension `<target-url>` (`target_url`): absolute http(s) base URL the task URLs are relative to; null = TASKQUEUE_PUSH_BASE_URL. */
  readonly targetUrl: string | null;
  /** `<target>` (App Engine's service, or version.service): routed by TASKQUEUE_TARGET_URLS when it names it (see routeOfTarget). */
  readonly target: string | null;
  /** Where the tasks go: `targetUrl`, else the target's route, else TASKQUEUE_PUSH_BASE_URL (set by `withPushBaseUrl`); null or absent = nowhere. */
  readonly baseUrl?: string | null;
}

/** App Engine targets to base URLs (TASKQUEUE_TARGET_URLS). */
export type TargetRoutes = ReadonlyMap<string, string>;

/**
 * The base URL of an App Engine `target`: the route of the target as
 * written (`v2.api`), else of its service (`api`, the part after the last
 * dot of version.service); null when the map names neither.
 */
export function routeOfTarget(target: string, routes: TargetRoutes): string | null {
  const exact = routes.get(target);
  if (exact !== undefined) return exact;
  const dot = target.lastIndexOf('.');
  return dot < 0 ? null : (routes.get(target.slice(dot + 1)) ?? null);
}

/**
 * The configuration with each push queue's base URL resolved: its
 * `<target-url>`, else its `<target>`'s route, else `baseUrl`
 * (TASKQUEUE_PUSH_BASE_URL). A target with no route falls back to `baseUrl`
 * (the start log warns: unroutedTargets). The routes are kept with it: a
 * cron job's target goes by them too (validatePushTask, the dispatcher).
 */
export function withPushBaseUrl(
  config: ServiceConfig,
  baseUrl: string | null,
  routes: TargetRoutes = new Map(),
): ServiceConfig {
  return {
    ...config,
    targetRoutes: routes,
    queues: config.queues.map((queue) => {
      if (queue.mode !== 'push') return queue;
      const push = queue.push ?? DEFAULT_PUSH_SETTINGS;
      const routed = push.target === null ? null : routeOfTarget(push.target, routes);
      return { ...queue, push: { ...push, baseUrl: push.targetUrl ?? routed ?? baseUrl } };
    }),
  };
}

/** Push queues whose `<target>` has no route (and no `<target-url>` decides instead): their tasks go to TASKQUEUE_PUSH_BASE_URL. */
export function unroutedTargets(
  config: ServiceConfig,
  routes: TargetRoutes,
): { readonly queue: string; readonly target: string }[] {
  return config.queues.flatMap((queue) => {
    const target = queue.push?.target ?? null;
    if (
      queue.mode !== 'push' ||
      target === null ||
      queue.push?.targetUrl != null ||
      routeOfTarget(target, routes) !== null
    )
      return [];
    return [{ queue: queue.name, target }];
  });
}

/** App Engine's push-queue defaults: 5 tasks/s, bucket 5, no concurrency cap. */
export const DEFAULT_PUSH_SETTINGS: PushQueueSettings = {
  ratePerSecond: 5,
  bucketSize: 5,
  maxConcurrentRequests: null,
  targetUrl: null,
  target: null,
};

export interface ServiceConfig {
  /** Where the configuration came from (a path, or `built-in`), for messages. */
  readonly source: string;
  /** `<total-storage-limit>` at the root, in bytes; null = none. */
  readonly totalStorageLimitBytes: number | null;
  /** `<admin-email>` elements at the root: project administrators. */
  readonly adminEmails: readonly string[];
  /** Every queue, `default` included, in file order. */
  readonly queues: readonly QueueConfig[];
  /**
   * The routes the base URLs were resolved with (withPushBaseUrl): a cron
   * firing whose job's target has one can be added to a queue with no base
   * URL of its own. Absent = not resolved (a tool reading the database).
   */
  readonly targetRoutes?: TargetRoutes;
}

/** The configuration of the `default` queue when the file does not define it. */
export function defaultQueueConfig(): QueueConfig {
  return {
    name: DEFAULT_QUEUE_NAME,
    mode: 'push',
    maxLeases: null,
    storageLimitBytes: null,
    leaseRate: DEFAULT_LEASE_RATE,
    retry: DEFAULT_RETRY_PARAMETERS,
    acl: { userEmails: [], writerEmails: [] },
    push: DEFAULT_PUSH_SETTINGS,
  };
}
