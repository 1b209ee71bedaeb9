import type { Context, Handler } from 'hono';
import type { AccessDecision, QueueAction } from '../auth/access-control.js';
import type { TaskQueue } from '../core/task-queue.js';
import type { ResolvedDeps } from './app-deps.js';
import { prettyForErrors, type CommonParams } from './common-params.js';
import { writeError } from './error-response.js';
import type { ResponseShape } from './fields/check-fields.js';
import { QueryParams } from './query-params.js';
import { requestCredentials } from './request-credentials.js';
import { noteCaller } from './request-notes.js';
import { runRestChecks } from './rest-checks.js';

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
 * Wraps a REST method in the checks every method shares (rest-checks.ts,
 * the same pipeline the batch's combined calls go through), then runs it.
 * Any error ends in Google's error envelope.
 */
export function restHandler(deps: ResolvedDeps, method: RestMethod): Handler {
  return async (c, next) => {
    let query: QueryParams | undefined;
    try {
      const parsed = QueryParams.fromUrl(c.req.url);
      query = parsed;
      const checked = await runRestChecks(
        deps,
        method,
        {
          project: c.req.param('project'),
          queueName: c.req.param('taskqueue') ?? '',
          task: c.req.param('task'),
          query: parsed,
          credentials: () => requestCredentials(c, parsed),
        },
        async (queue) => {
          const decision = await deps.accessControl.check(
            requestCredentials(c, parsed),
            queue?.config ?? null,
            method.action,
          );
          noteCaller(c, decision.principal?.email);
          return decision;
        },
      );
      if (checked === null) return next();
      return await method.run({ c, deps, query: parsed, project: deps.service.project, ...checked });
    } catch (error) {
      return writeError(c, error, prettyForErrors(query));
    }
  };
}
