import type { Context } from 'hono';
import { QueueError } from '../../core/errors.js';
import type { ResolvedDeps } from '../app-deps.js';
import { writeError } from '../error-response.js';
import { writeJsonText } from '../write-json.js';

/**
 * `GET /healthz`: 200 `{"status":"ok","engine":...}` after a round trip to
 * the database; 503 in Google's envelope, with `Retry-After`, when the
 * database does not answer. Load balancers and orchestrators poll it; it needs no
 * credentials and shows nothing about queues.
 */
export async function health(c: Context, deps: ResolvedDeps): Promise<Response> {
  try {
    await deps.service.ping();
  } catch (error) {
    // Whatever the store reports, for a health check it means one thing: not ready, try again.
    return writeError(c, new QueueError('TRANSIENT_ERROR', 'the database is unavailable', {}, { cause: error }), false);
  }
  return writeJsonText(c, 200, JSON.stringify({ status: 'ok', engine: deps.service.engine }), {
    'cache-control': 'no-store',
  });
}
