import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../core/logger.js';
import { requestNote } from './request-notes.js';

/** Where request outcomes are counted (Prometheus, in the server). */
export interface HttpObserver {
  request(route: string, method: string, status: number, seconds: number): void;
}

/** A client's `X-Request-Id` is kept when it is 1 to 128 of these characters; anything else gets a fresh id. */
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** Health and readiness routes: their 503s are logged as requests, not failures. */
const PROBES = new Set(['/healthz', '/readyz']);

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * One log line per request, written when it ends: request id, method, route
 * template (never the raw path or query: they can hold an `oauth_token`),
 * status, duration, queue and the caller's verified e-mail. A 5xx is logged
 * at level error with the error's stack, once: the error handlers only note
 * the error, this line writes it. The request id is the client's
 * `X-Request-Id` when it is well formed and short, else a new UUID, and is
 * echoed in the response's `X-Request-Id`. While the server shuts down,
 * every response says `Connection: close`, so keep-alive clients move on.
 */
export function requestLog(deps: {
  logger: Logger;
  observer?: HttpObserver | undefined;
  shutdown?: AbortSignal | undefined;
}): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const sent = c.req.header('x-request-id');
    const id = sent !== undefined && REQUEST_ID.test(sent) ? sent : randomUUID();
    // A call inside a batch is logged on its own line, but its part of the
    // batch answer stays as the route wrote it: the batch's own response
    // carries the id.
    const inBatch = (c.env as { batchStartedAt?: unknown } | undefined)?.batchStartedAt !== undefined;
    // Set before the route runs, so it is part of the response the route
    // builds. Set after, it makes Hono rebuild that response around a web
    // stream of its body, which the adapter then pumps chunk by chunk: that
    // was a third of a numTasks=1 lease's server time (docs/performance.md).
    if (!inBatch) c.header('x-request-id', id);
    await next();
    if (!inBatch) {
      // A route that answers with a Response of its own (not through `c`) did not take the prepared header.
      if (c.res.headers.get('x-request-id') !== id) c.header('x-request-id', id);
      // Rare (the server is stopping): the slow path above is fine here.
      if (deps.shutdown?.aborted) c.header('connection', 'close');
    }
    const seconds = (performance.now() - started) / 1000;
    const method = METHODS.has(c.req.method) ? c.req.method : 'OTHER';
    const status = c.res.status;
    // After next() the route index points at the last handler that ran; a
    // wildcard there means only middleware matched (an unknown path).
    const template = c.req.routePath;
    const route = template.includes('*') ? 'unmatched' : template;
    deps.observer?.request(route, method, status, seconds);
    const note = requestNote(c);
    const queue = c.req.param('taskqueue');
    const fields: Record<string, unknown> = {
      reqId: id,
      method,
      route,
      status,
      ms: Math.round(seconds * 10_000) / 10,
    };
    if (queue !== undefined) fields.queue = queue;
    if (note.caller !== undefined) fields.caller = note.caller;
    if (inBatch) fields.inBatch = true;
    // A probe's 503 is its answer, not a failure: during an outage a load
    // balancer asks every few seconds, and "database lost" is logged once.
    if (status >= 500 && !PROBES.has(route)) {
      fields.err = note.error instanceof Error ? note.error : undefined;
      deps.logger.error(fields, 'request failed');
    } else {
      deps.logger.info(fields, 'request');
    }
  };
}
