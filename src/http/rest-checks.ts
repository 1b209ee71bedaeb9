import type { AccessDecision, QueueAction, RequestCredentials } from '../auth/access-control.js';
import { isQueueError, QueueError } from '../core/errors.js';
import type { TaskQueue } from '../core/task-queue.js';
import { TASK_NAME_PATTERN } from '../core/task.js';
import type { ResolvedDeps } from './app-deps.js';
import { parseCommonParams, type CommonParams } from './common-params.js';
import type { ResponseShape } from './fields/check-fields.js';
import { HttpError, quote } from './http-error.js';
import { isOwnProject } from './project-id.js';
import type { QueryParams } from './query-params.js';

/** What the checks of a REST method read from a request: its path's parts, its query and its credentials. */
export interface RestTarget {
  /** The path's `{project}`, undefined on the short form. */
  readonly project: string | undefined;
  /** The path's `{taskqueue}`. */
  readonly queueName: string;
  /** The path's `{task}`, for the per-task methods. */
  readonly task: string | undefined;
  readonly query: QueryParams;
  /** Read when the AccessControl is asked, after the common parameters were checked (each may appear once). */
  readonly credentials: () => RequestCredentials;
}

/** What a request that passed the checks works with. */
export interface CheckedCall {
  readonly params: CommonParams;
  readonly queue: TaskQueue;
  readonly decision: AccessDecision;
  /** The path's task name (valid), or '' for the queue and collection methods. */
  readonly task: string;
}

/** The steps before the AccessControl (see runRestChecks), done: the common parameters, and the queue when it is configured. */
export interface PreAccess {
  readonly params: CommonParams;
  readonly queue: TaskQueue | null;
}

/**
 * The checks every REST method makes before it runs, in this order, for the
 * routes (rest-handler.ts) and the batch's combined calls alike (one
 * pipeline, so they cannot drift apart):
 *
 * 1. the path's project is this service's (else 404);
 * 2. the common parameters are valid (`alt`, `prettyPrint`, `fields` for
 *    this response);
 * 3. the AccessControl allows the action on the queue, before any data is
 *    touched: an unknown queue is passed as null, so only those who may
 *    know learn that it does not exist;
 * 4. the queue exists and is a pull queue, or a push queue for the methods
 *    that serve push queues (PUSH_QUEUE_ACTIONS; this is the one place REST
 *    checks the mode);
 * 5. the path's task name is a valid name.
 *
 * Resolves to null when the path is not this method's after all: a
 * canonical path whose project is `taskqueues` is also the short form of a
 * longer path, for the next route.
 */
export async function runRestChecks(
  deps: ResolvedDeps,
  method: { readonly action: QueueAction; readonly shape: ResponseShape | null },
  target: RestTarget,
  authorize: (queue: TaskQueue | null) => Promise<AccessDecision> = (queue) =>
    deps.accessControl.check(target.credentials(), queue?.config ?? null, method.action),
): Promise<CheckedCall | null> {
  const before = checkBeforeAccess(deps, method.shape, target);
  if (before === null) return null;
  const decision = await authorize(before.queue);
  const { queue, task } = checkAfterAccess(before.queue, target, method.action);
  return { params: before.params, queue, decision, task };
}

/** Steps 1 and 2, and the queue's lookup; null when the path may be the short form of another route. */
export function checkBeforeAccess(
  deps: ResolvedDeps,
  shape: ResponseShape | null,
  target: RestTarget,
): PreAccess | null {
  const project = target.project;
  if (project !== undefined && !isOwnProject(project, deps.service.project)) {
    // `projects/taskqueues/taskqueues/...` is also the short form for a queue named "taskqueues".
    if (project === 'taskqueues') return null;
    throw new HttpError(404, 'notFound', `Project ${quote(project)} is not served here`);
  }
  const params = parseCommonParams(target.query, shape);
  return { params, queue: configuredQueue(deps, target.queueName) };
}

/**
 * What REST serves of a push queue (an extension): adds (with url,
 * httpMethod and headers), reads, deletes and the operators' methods. Leases
 * and lease updates stay pull-only, and so does queues.get (v1beta2's queue
 * resource describes a pull queue).
 */
const PUSH_QUEUE_ACTIONS: ReadonlySet<QueueAction> = new Set([
  'task.insert',
  'task.get',
  'task.list',
  'task.delete',
  'queue.admin',
]);

/** Steps 4 and 5, once the AccessControl has allowed the call. */
export function checkAfterAccess(
  queue: TaskQueue | null,
  target: Pick<RestTarget, 'queueName' | 'task'>,
  action?: QueueAction,
): { queue: TaskQueue; task: string } {
  const queueName = target.queueName;
  if (!queue) throw new QueueError('UNKNOWN_QUEUE', `Queue ${quote(queueName)} is not defined`, { queue: queueName });
  if (queue.config.mode !== 'pull' && (action === undefined || !PUSH_QUEUE_ACTIONS.has(action))) {
    throw new QueueError(
      'INVALID_QUEUE_MODE',
      `Queue ${quote(queueName)} is a push queue; the REST API serves pull queues only`,
      {
        queue: queueName,
      },
    );
  }
  const task = target.task ?? '';
  if (target.task !== undefined && !TASK_NAME_PATTERN.test(task)) {
    throw new QueueError(
      'INVALID_TASK_NAME',
      `Task name ${quote(task)} is not valid: it must match ${TASK_NAME_PATTERN.source}`,
      { task },
    );
  }
  return { queue, task };
}

/**
 * Whether the answer must be `Cache-Control: private` (RFC 6750 section
 * 2.3: the request carried its token in the URL), decided from the parsed
 * query as the credentials are read, so `oauth%5Ftoken` counts too.
 */
export function tokenInUrl(query: QueryParams): boolean {
  return query.has('oauth_token');
}

function configuredQueue(deps: ResolvedDeps, name: string): TaskQueue | null {
  try {
    return deps.service.getQueue(name);
  } catch (error) {
    if (isQueueError(error, 'UNKNOWN_QUEUE')) return null;
    throw error;
  }
}
