import type { Context } from 'hono';
import { writeJsonText } from '../write-json.js';

/** Whether the server can take traffic, and if not, why (a short machine-readable reason and a sentence). */
export type Readiness =
  | { readonly ready: true }
  | { readonly ready: false; readonly reason: 'database' | 'migrations' | 'config' | 'stopping'; readonly message: string };

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
