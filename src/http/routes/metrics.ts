import type { Context } from 'hono';
import type { MetricsSource, ResolvedDeps } from '../app-deps.js';
import { writeError } from '../error-response.js';
import { QueryParams } from '../query-params.js';
import { requestCredentials } from '../request-credentials.js';
import { noteCaller } from '../request-notes.js';

/**
 * `GET /metrics` in Prometheus text format. With TASKQUEUE_METRICS=token the
 * scraper must present an administrator's bearer token (the `queue.admin`
 * action, asked about no particular queue), answered 401/403 like the REST
 * API otherwise.
 */
export async function metrics(c: Context, deps: ResolvedDeps, source: MetricsSource): Promise<Response> {
  try {
    if (source.access === 'token') {
      const decision = await deps.accessControl.check(
        requestCredentials(c, QueryParams.fromUrl(c.req.url)),
        null,
        'queue.admin',
      );
      noteCaller(c, decision.principal?.email);
    }
    const { contentType, body } = await source.render();
    return c.body(body, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
  } catch (error) {
    return writeError(c, error, false);
  }
}
