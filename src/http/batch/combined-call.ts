import type { AccessDecision, QueueAction, RequestCredentials } from '../../auth/access-control.js';
import type { TaskQueue } from '../../core/task-queue.js';
import { TASK_NAME_PATTERN } from '../../core/task.js';
import type { ResolvedDeps } from '../app-deps.js';
import { parseCommonParams, type CommonParams } from '../common-params.js';
import { isOwnProject } from '../project-id.js';
import { QueryParams } from '../query-params.js';
import { RESPONSE_SHAPES } from '../response-shapes.js';
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

/** The common parameters of a call without a query string (`parseCommonParams` of nothing). */
const NO_PARAMS: CommonParams = { pretty: true, fields: null };

export const ACTIONS: Readonly<Record<CombinedCall['kind'], QueueAction>> = { delete: 'task.delete', insert: 'task.insert' };

/**
 * The checks `restHandler` makes before the AccessControl, for a plain
 * DELETE or insert: the path's project is this one, the common parameters
 * are valid, the queue is configured and a pull queue, the task name is
 * valid; and nothing the route would treat specially is present (`If-Match`
 * on a delete needs a read first; a method override or a Content-Encoding
 * on an insert). A call that passes can only end in the AccessControl's
 * refusal, the core call's outcome, or (insert) a 400 for its body, so it
 * may skip the routing. Any other call returns null and goes through the
 * app, which answers it, errors included, exactly as outside a batch.
 */
export function combinedCall(request: InnerRequest, deps: ResolvedDeps): CombinedCall | null {
  const kind = request.method === 'DELETE' ? 'delete' : request.method === 'POST' ? 'insert' : null;
  if (kind === null) return null;
  const match = TASKS_PATH.exec(request.path);
  if (!match) return null;
  const [, project, queueName = '', name] = match;
  if (kind === 'delete' ? name === undefined || !TASK_NAME_PATTERN.test(name) || request.headers.has('if-match') : name !== undefined) return null;
  if (kind === 'insert') {
    const encoding = request.headers.get('content-encoding')?.trim().toLowerCase();
    if (request.headers.has('x-http-method-override') || (encoding !== undefined && encoding !== '' && encoding !== 'identity')) return null;
  }
  if (project !== undefined && project !== deps.service.project && (project === 'taskqueues' || !isOwnProject(project, deps.service.project))) return null;
  let params = NO_PARAMS;
  let oauthToken: string | undefined;
  let apiKey: string | undefined;
  let queue: TaskQueue;
  try {
    if (request.search !== '') {
      const query = QueryParams.fromString(request.search.slice(1));
      params = parseCommonParams(query, kind === 'delete' ? RESPONSE_SHAPES.none : RESPONSE_SHAPES.task);
      oauthToken = query.string('oauth_token');
      apiKey = query.string('key');
    }
    queue = deps.service.getQueue(queueName);
  } catch {
    return null;
  }
  if (queue.config.mode !== 'pull') return null;
  return {
    kind,
    queue,
    name: name ?? '',
    body: request.body,
    credentials: { authorization: request.headers.get('authorization'), oauthToken, apiKey },
    params,
    project: deps.service.project,
    headers: request.href.includes('oauth_token=') ? PRIVATE : NO_HEADERS,
  };
}

/** The AccessControl's decisions within one batch, by credentials, queue and action: each question is asked once. */
export function decisionCache(deps: ResolvedDeps): (call: CombinedCall) => Promise<AccessDecision> {
  const cache = new Map<string, Promise<AccessDecision>>();
  let last: { call: CombinedCall; decision: Promise<AccessDecision> } | undefined;
  return (call) => {
    const { authorization, oauthToken, apiKey } = call.credentials;
    // Most batches carry one set of credentials for one queue: the last question usually is this one.
    if (last && sameQuestion(last.call, call)) return last.decision;
    const action = ACTIONS[call.kind];
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
export async function authorizeAll(calls: readonly CombinedCall[], authorize: (call: CombinedCall) => Promise<AccessDecision>): Promise<Array<{ error: unknown } | undefined>> {
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
