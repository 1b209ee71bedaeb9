import type { Context, Handler, Hono } from 'hono';
import type { ResolvedDeps } from '../app-deps.js';
import { prettyForErrors } from '../common-params.js';
import { writeError } from '../error-response.js';
import { GZIP_THRESHOLD_BYTES, gzipBody, wantsGzip } from '../gzip-response.js';
import { HttpError } from '../http-error.js';
import { QueryParams } from '../query-params.js';
import { readBody } from '../read-body.js';
import { parseBatch, type BatchPart } from './batch-parts.js';
import type { BatchCallEnv } from '../wait-budget.js';
import { errorPart, writeMultipart, type PartResponse } from './batch-response.js';
import { combinedCall, decisionCache, type CombinedCall } from './combined-call.js';
import { runDeleteGroup } from './delete-group.js';
import { runInsertGroup } from './insert-group.js';
import { inheritedHeaders, innerRequest, type BatchContext, type InnerRequest } from './inner-request.js';
import { multipartBoundary } from './multipart.js';

/** The paths of the batch endpoint: the discovery's `batchPath` (`batch`) and Google's per-API form. */
export const BATCH_PATHS = ['/batch', '/batch/taskqueue/v1beta2'] as const;

/**
 * The answers of one batch add up to at most this many bytes of bodies (a
 * batch of 1000 leases could otherwise make a gigabyte response). Once they
 * reach it, the requests not yet started are not run: their parts answer
 * 413 and they can be sent again in another batch. The same figure bounds
 * one in-process lease.
 */
export const MAX_BATCH_RESPONSE_BYTES = 32 * 1024 * 1024;

export interface BatchOptions {
  /**
   * Plain DELETEs of one queue go to the core as one `deleteTask(names)`
   * call, and plain inserts as `add(tasks)` calls of up to 100 (default
   * true). Off, every part goes through the app's routing; the tests and the
   * benchmark compare the two.
   */
  readonly combine?: boolean;
  /** Parts that go through the app's routing at the same time (default 16: a full connection pool and then some). */
  readonly concurrency?: number;
}

/**
 * `POST /batch` and `POST /batch/taskqueue/v1beta2`: Google's batch
 * request. The body is `multipart/mixed`, one `application/http` part per
 * call (at most 1000); the answer is `multipart/mixed` with one
 * `application/http` part per call, in the same order, each carrying
 * `Content-ID: response-<id>` when its request had a Content-ID.
 *
 * Each call runs as if it had been sent alone: through the app's routing,
 * the same checks, the same AccessControl, with the batch request's headers
 * (Authorization among them, but no `Content-` header) and query
 * parameters unless the call gives its own. The calls of one batch run
 * concurrently; as with Google, their order of execution is not defined,
 * only the order of the answers. Long-poll leases count their `waitSecs`
 * from the batch's start, so a batch holds its client at most its longest
 * `waitSecs`, not their sum (wait-budget.ts). A malformed batch is one 400; a call that
 * fails is its part's error, and the batch is still 200.
 *
 * Plain DELETEs and inserts skip the routing: those of one queue are
 * authorised (each distinct set of credentials once per action) and go to
 * the core together, the DELETEs in one `deleteTask(names)` call, the
 * inserts in `add(tasks)` calls of 100, so a consumer deleting 100 tasks, or
 * a producer adding 100, costs one statement. Their answers are byte for
 * byte those of the routes (tests compare the two paths).
 */
export function batchHandler(app: Hono, deps: ResolvedDeps, options: BatchOptions = {}): Handler {
  const combine = options.combine ?? true;
  const concurrency = Math.max(1, options.concurrency ?? 16);
  return async (c) => {
    let parts: BatchPart[];
    try {
      // The media type is checked before a byte of the body is read.
      const boundary = multipartBoundary(c.req.header('content-type'));
      parts = parseBatch(boundary, await readBody(c));
    } catch (error) {
      return writeError(c, error, prettyForErrors(QueryParams.fromUrl(c.req.url)));
    }
    const outer = new URL(c.req.url);
    const batch: BatchContext = {
      origin: outer.origin,
      query: outer.search.length > 1 ? outer.searchParams : null,
      headers: inheritedHeaders(outerHeaders(c)),
    };
    const env: BatchCallEnv = { batchStartedAt: Date.now() };
    const responses = await runBatch(app, deps, parts, batch, { signal: c.req.raw.signal, env }, combine, concurrency);
    const written = writeMultipart(
      responses,
      parts.map((part) => part.contentId),
    );
    const headers: Record<string, string> = {
      'content-type': `multipart/mixed; boundary=${written.boundary}`,
      vary: 'Accept-Encoding, User-Agent',
    };
    // RFC 6750 section 2.3, as for every route: a token in the URL makes the answer private.
    if (outer.search.includes('oauth_token=')) headers['cache-control'] = 'private';
    let body = written.body;
    if (
      body.byteLength >= GZIP_THRESHOLD_BYTES &&
      wantsGzip(c.req.header('accept-encoding'), c.req.header('user-agent'))
    ) {
      body = await gzipBody(body);
      headers['content-encoding'] = 'gzip';
    }
    return c.body(body as never, 200, headers);
  };
}

/**
 * The batch request's headers. On @hono/node-server, read from the Node
 * request: `c.req.header()` would build a web Headers object first.
 */
function outerHeaders(c: Context): Record<string, string> {
  const incoming = (c.env as { incoming?: { headers?: unknown } } | undefined)?.incoming;
  if (incoming && typeof incoming.headers === 'object' && incoming.headers !== null) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(incoming.headers as Record<string, string | string[] | undefined>)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return headers;
  }
  return c.req.header();
}

async function runBatch(
  app: Hono,
  deps: ResolvedDeps,
  parts: readonly BatchPart[],
  batch: BatchContext,
  run: DispatchContext,
  combine: boolean,
  concurrency: number,
): Promise<PartResponse[]> {
  const responses: Array<PartResponse | undefined> = new Array(parts.length);
  const groups = new Map<string, { indexes: number[]; calls: CombinedCall[] }>();
  const routed: Array<readonly [number, InnerRequest]> = [];
  parts.forEach((part, index) => {
    const request = innerRequest(part, batch);
    if (request instanceof HttpError) {
      responses[index] = errorPart(request, prettyForErrors(QueryParams.fromUrl(part.target)));
      return;
    }
    const call = combine ? combinedCall(request, deps) : null;
    if (!call) {
      routed.push([index, request]);
      return;
    }
    const key = `${call.kind} ${call.queue.name}`;
    const group = groups.get(key) ?? { indexes: [], calls: [] };
    group.indexes.push(index);
    group.calls.push(call);
    groups.set(key, group);
  });

  const work: Array<Promise<void>> = [];
  const authorize = decisionCache(deps);
  for (const { indexes, calls } of groups.values()) {
    const run = calls[0]!.kind === 'delete' ? runDeleteGroup : runInsertGroup;
    work.push(
      run(calls, authorize).then((answers) => answers.forEach((answer, k) => (responses[indexes[k]!] = answer))),
    );
  }

  let next = 0;
  let budget = MAX_BATCH_RESPONSE_BYTES;
  const worker = async () => {
    while (next < routed.length) {
      const [index, request] = routed[next++]!;
      if (budget <= 0) {
        const error = new HttpError(
          413,
          'responseTooLarge',
          `Not run: the answers of this batch reached ${MAX_BATCH_RESPONSE_BYTES} bytes; send this request in another batch`,
        );
        responses[index] = errorPart(error, prettyForErrors(QueryParams.fromUrl(request.search)));
        continue;
      }
      const response = await dispatch(app, request, run);
      budget -= typeof response.body === 'string' ? Buffer.byteLength(response.body) : response.body.byteLength;
      responses[index] = response;
    }
  };
  for (let i = 0; i < Math.min(concurrency, routed.length); i++) work.push(worker());
  await Promise.all(work);
  return responses as PartResponse[];
}

/** What every call of one batch runs with: the client's abort signal, and the batch's wait clock. */
interface DispatchContext {
  readonly signal: AbortSignal;
  readonly env: BatchCallEnv;
}

/** Runs one call through the app, as a request of its own, and reads its whole answer. */
async function dispatch(app: Hono, inner: InnerRequest, { signal, env }: DispatchContext): Promise<PartResponse> {
  const init: RequestInit = { method: inner.method, headers: inner.headers.entries(), signal };
  if (inner.body.byteLength > 0 && inner.method !== 'GET' && inner.method !== 'HEAD')
    init.body = inner.body as Uint8Array<ArrayBuffer>;
  let request: Request;
  try {
    request = new Request(inner.href, init);
  } catch {
    // Methods fetch forbids (CONNECT, TRACE), header values it refuses.
    return errorPart(new HttpError(400, 'badRequest', `Not a valid HTTP request: ${inner.method} ${inner.path}`), true);
  }
  let response: Response;
  try {
    response = await app.fetch(request, env);
  } catch (error) {
    return errorPart(error, true);
  }
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Array<[string, string]> = [];
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'transfer-encoding') headers.push([name, value]);
  });
  return { status: response.status, headers, body };
}
