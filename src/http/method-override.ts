import type { Context, Hono, MiddlewareHandler, Next } from 'hono';
import { writeError } from './error-response.js';
import { HttpError, quote } from './http-error.js';

/**
 * `X-HTTP-Method-Override: PATCH` on a POST (spec section 4.3, patch rule
 * 7), for clients behind proxies that block PATCH: the request is
 * dispatched again as a PATCH. That is also how a task literally named
 * `lease` is reached, since `POST .../tasks/lease` is the lease method.
 * Only POST is overridden, and only to PATCH; other overrides are 400.
 *
 * Re-dispatching builds a web Request around the body stream, which is
 * slower than the direct path; it costs only the requests that ask for it.
 */
export function methodOverride(app: Hono): MiddlewareHandler {
  // Not async: the requests without the header (nearly all) go straight on, with no await of their own.
  return function methodOverride(c, next) {
    const override = c.req.method === 'POST' ? c.req.header('x-http-method-override') : undefined;
    if (override === undefined) return next();
    return overridden(app, c, next, override);
  };
}

/** The slow path: a request that does carry X-HTTP-Method-Override. */
async function overridden(app: Hono, c: Context, next: Next, override: string): Promise<Response | void> {
  const method = override.trim().toUpperCase();
  if (method === 'POST') return next();
  if (method !== 'PATCH') {
    return writeError(
      c,
      new HttpError(
        400,
        'badRequest',
        `X-HTTP-Method-Override ${quote(override)} is not supported; only PATCH may override POST`,
        {
          location: { type: 'header', name: 'X-HTTP-Method-Override' },
        },
      ),
      true,
    );
  }
  const headers = new Headers(c.req.raw.headers);
  headers.delete('x-http-method-override');
  const request = new Request(c.req.url, {
    method: 'PATCH',
    headers,
    body: c.req.raw.body,
    signal: c.req.raw.signal,
    duplex: 'half',
  } as RequestInit);
  // No Node bindings: the re-dispatched request's body is read from the web stream above.
  return app.fetch(request, {});
}
