import type { Context } from 'hono';
import type { Readiness } from '../app-deps.js';
import { writeJsonText } from '../write-json.js';

/**
 * `GET /readyz`: 200 `{"status":"ready"}` when the database answers, its
 * migrations are current and the configuration is loaded; 503
 * `{"status":"not ready","reason":...,"message":...}` otherwise (also while
 * the server shuts down, so a load balancer stops sending traffic). Unlike
 * `/healthz` it is about taking traffic, not about the process being up.
 */
export async function readiness(c: Context, check: () => Promise<Readiness>): Promise<Response> {
  const result = await check();
  const headers = { 'cache-control': 'no-store' };
  if (result.ready) return writeJsonText(c, 200, JSON.stringify({ status: 'ready' }), headers);
  return writeJsonText(
    c,
    503,
    JSON.stringify({ status: 'not ready', reason: result.reason, message: result.message }),
    { ...headers, 'retry-after': '1' },
  );
}
