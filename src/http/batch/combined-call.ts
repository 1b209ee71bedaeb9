import type { AccessDecision, RequestCredentials } from '../../auth/access-control.js';
import type { TaskQueue } from '../../core/task-queue.js';
import type { ResolvedDeps } from '../app-deps.js';
import type { CommonParams } from '../common-params.js';
import { QueryParams } from '../query-params.js';
import { credentialsOf } from '../request-credentials.js';
import { checkAfterAccess, checkBeforeAccess, tokenInUrl, type RestTarget } from '../rest-checks.js';
import type { RestMethod } from '../rest-handler.js';
import { DELETE_TASK } from '../routes/delete-task.js';
import { INSERT_TASK } from '../routes/insert-task.js';
import type { InnerRequest } from './inner-request.js';

/**
 * A task path in either form: canonical (with a project) or short. Percent
 * escapes are left to the full routes, which decode them.
 */
const TASKS_PATH = /^\/taskqueue\/v1beta2\/projects\/(?:([^/%]+)\/)?taskqueues\/([^/%]+)\/tasks(?:\/([^/%]+))?$/;

/**
 * A call of a batch that may join the other calls of its kind on its queue
 * in one core call: a plain tasks.delete or tasks.insert.
 */
export interface CombinedCall {
  readonly kind: 'delete' | 'insert';
  readonly queue: TaskQueue;
  /** The task of the path (delete). */
  readonly name: string;
  /** The request body (insert). */
  readonly body: Buffer;
  readonly credentials: RequestCredentials;
  readonly params: CommonParams;
  /** The service's project, as task `queueName`s carry it. */
  readonly project: string;
  /** A URL with `oauth_token` is answered `Cache-Control: private` (RFC 6750 section 2.3), as by the routes. */
  readonly headers: Readonly<Record<string, string>>;
}

/** No extra answer headers; `Cache-Control: private` after a token in the URL. */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const PRIVATE: Readonly<Record<string, string>> = Object.freeze({ 'cache-control': 'private' });

/** The REST methods the combined calls stand for: their ACL actions and response shapes are the routes' own. */
const METHODS: Readonly<Record<CombinedCall['kind'], RestMethod>> = { delete: DELETE_TASK, insert: INSERT_TASK };

/**
 * A plain DELETE or insert of a batch, checked by the routes' own pipeline
 * (rest-checks.ts) so that it may skip the routing: nothing the route would
 * treat specially may be present (`If-Match` on a delete needs a read
 * first; a method override or a Content-Encoding on an insert), and the
 * checks before and after the AccessControl must pass. The latter do not
 * depend on the AccessControl's answer, so running them first only decides
 * the path: a call that would fail them returns null and goes through the
 * app, which asks the AccessControl first and answers exactly as outside a
 * batch. A call that passes can only end in the AccessControl's refusal,
 * the core call's outcome, or (insert) a 400 for its body; the group asks
 * the AccessControl (decisionCache) before the core call.
 */
export function combinedCall(request: InnerRequest, deps: ResolvedDeps): CombinedCall | null {
  const kind = request.method === 'DELETE' ? 'delete' : request.method === 'POST' ? 'insert' : null;
  if (kind === null) return null;
  const match = TASKS_PATH.exec(request.path);
  if (!match) return null;
  const [, project, queueName = '', name] = match;
  if (kind === 'delete' ? name === undefined || request.headers.has('if-match') : name !== undefined) return null;
  if (kind === 'insert') {
    const encoding = request.headers.get('content-encoding')?.trim().toLowerCase();
    if (
      request.headers.has('x-http-method-override') ||
      (encoding !== undefined && encoding !== '' && encoding !== 'identity')
    )
      return null;
  }
  const query = QueryParams.fromString(request.search.slice(1));
  const target: RestTarget = {
    project,
    queueName,
    task: name,
    query,
    credentials: () => credentialsOf(request.headers.get('authorization'), query),
  };
  try {
    const before = checkBeforeAccess(deps, METHODS[kind].shape, target);
    if (before === null) return null;
    const { queue } = checkAfterAccess(before.queue, target, kind === 'insert' ? 'task.insert' : 'task.delete');
    return {
      kind,
      queue,
      name: name ?? '',
      body: request.body,
      credentials: target.credentials(),
      params: before.params,
      project: deps.service.project,
      headers: tokenInUrl(query) ? PRIVATE : NO_HEADERS,
    };
  } catch {
    return null;
  }
}

/** The AccessControl's decisions within one batch, by credentials, queue and action: each question is asked once. */
export function decisionCache(deps: ResolvedDeps): (call: CombinedCall) => Promise<AccessDecision> {
  const cache = new Map<string, Promise<AccessDecision>>();
  let last: { call: CombinedCall; decision: Promise<AccessDecision> } | undefined;
  return (call) => {
    const { authorization, oauthToken, apiKey } = call.credentials;
    // Most batches carry one set of credentials for one queue: the last question usually is this one.
    if (last && sameQuestion(last.call, call)) return last.decision;
    const action = METHODS[call.kind].action;
    const key = JSON.stringify([authorization ?? null, oauthToken ?? null, apiKey ?? null, call.queue.name, action]);
    let decision = cache.get(key);
    if (!decision) {
      decision = deps.accessControl.check(call.credentials, call.queue.config, action);
      cache.set(key, decision);
    }
    last = { call, decision };
    return decision;
  };
}

function sameQuestion(a: CombinedCall, b: CombinedCall): boolean {
  return (
    a.kind === b.kind &&
    a.queue === b.queue &&
    a.credentials.authorization === b.credentials.authorization &&
    a.credentials.oauthToken === b.credentials.oauthToken &&
    a.credentials.apiKey === b.credentials.apiKey
  );
}

/**
 * The AccessControl's answer for each call: undefined when allowed, the
 * error otherwise. Calls that share a question share its promise (see
 * decisionCache), which is settled once; all of them are watched at once,
 * so no refusal is ever an unhandled rejection.
 */
export async function authorizeAll(
  calls: readonly CombinedCall[],
  authorize: (call: CombinedCall) => Promise<AccessDecision>,
): Promise<Array<{ error: unknown } | undefined>> {
  const decisions = calls.map(authorize);
  const distinct = [...new Set(decisions)];
  const settled = await Promise.allSettled(distinct);
  const outcomes = new Map<Promise<AccessDecision>, { error: unknown } | undefined>();
  distinct.forEach((decision, i) => {
    const result = settled[i]!;
    outcomes.set(decision, result.status === 'rejected' ? { error: result.reason } : undefined);
  });
  return decisions.map((decision) => outcomes.get(decision));
}
