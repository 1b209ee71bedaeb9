import type { Context, Handler } from 'hono';
import type { AccessDecision, QueueAction } from '../auth/access-control.js';
import { isQueueError, QueueError } from '../core/errors.js';
import type { TaskQueue } from '../core/task-queue.js';
import { TASK_NAME_PATTERN } from '../core/task.js';
import type { ResolvedDeps } from './app-deps.js';
import { parseCommonParams, prettyForErrors, type CommonParams } from './common-params.js';
import { writeError } from './error-response.js';
import type { ResponseShape } from './fields/check-fields.js';
import { HttpError, quote } from './http-error.js';
import { isOwnProject } from './project-id.js';
import { QueryParams } from './query-params.js';
import { requestCredentials } from './request-credentials.js';
import { noteCaller } from './request-notes.js';

/** Everything a REST method works with, once the shared checks have passed. */
export interface RestCall {
  readonly c: Context;
  readonly deps: ResolvedDeps;
  readonly query: QueryParams;
  readonly params: CommonParams;
  /** The service's project id, as task `queueName`s carry it. */
  readonly project: string;
  readonly queue: TaskQueue;
  readonly decision: AccessDecision;
  /** The `{task}` of the path (validated), for the per-task methods. */
  readonly task: string;
}

/** One REST method: what the ACL calls it, what `fields` may select in its response, and its body. */
export interface RestMethod {
  readonly action: QueueAction;
  readonly shape: ResponseShape | null;
  run(call: RestCall): Promise<Response>;
}

/**
 * Wraps a REST method in the steps every method shares, in this order:
 * the path's project must be this one (else 404); the common parameters
 * must be valid (`alt`, `prettyPrint`, `fields` for this response); the
 * AccessControl must allow the action on the queue (before any data is
 * touched: an unknown queue is passed as null, so only those who may know
 * learn that it does not exist); the queue must exist and be a pull queue;
 * the path's task name must be a valid name. Any error ends in Google's
 * error envelope.
 */
export function restHandler(deps: ResolvedDeps, method: RestMethod): Handler {
  return async (c, next) => {
    let query: QueryParams | undefined;
    try {
      const pathProject = c.req.param('project');
      if (pathProject !== undefined && !isOwnProject(pathProject, deps.service.project)) {
        // `projects/taskqueues/taskqueues/...` is also the short form for a queue named "taskqueues".
        if (pathProject === 'taskqueues') return next();
        throw new HttpError(404, 'notFound', `Project ${quote(pathProject)} is not served here`);
      }
      query = QueryParams.fromUrl(c.req.url);
      const params = parseCommonParams(query, method.shape);
      const queueName = c.req.param('taskqueue') ?? '';
      const queue = configuredQueue(deps, queueName);
      const decision = await deps.accessControl.check(requestCredentials(c, query), queue?.config ?? null, method.action);
      noteCaller(c, decision.principal?.email);
      if (!queue) throw new QueueError('UNKNOWN_QUEUE', `Queue ${quote(queueName)} is not defined`, { queue: queueName });
      if (queue.config.mode !== 'pull') {
        throw new QueueError('INVALID_QUEUE_MODE', `Queue ${quote(queueName)} is a push queue; the REST API serves pull queues only`, {
          queue: queueName,
        });
      }
      const task = c.req.param('task') ?? '';
      if (c.req.param('task') !== undefined && !TASK_NAME_PATTERN.test(task)) {
        throw new QueueError('INVALID_TASK_NAME', `Task name ${quote(task)} is not valid: it must match ${TASK_NAME_PATTERN.source}`, {
          task,
        });
      }
      return await method.run({ c, deps, query, params, project: deps.service.project, queue, decision, task });
    } catch (error) {
      return writeError(c, error, prettyForErrors(query));
    }
  };
}

function configuredQueue(deps: ResolvedDeps, name: string): TaskQueue | null {
  try {
    return deps.service.getQueue(name);
  } catch (error) {
    if (isQueueError(error, 'UNKNOWN_QUEUE')) return null;
    throw error;
  }
}
