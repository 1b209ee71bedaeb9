import { Agent, request } from 'undici';
import type { PushHttpRequest, PushHttpResult, PushTransport } from '../core/push/dispatcher/push-transport.js';
import { RESPONSE_EXCERPT_BYTES } from '../core/task-attempt.js';

/** Response bytes read at most: only the status matters, the rest is discarded with the connection. */
const MAX_RESPONSE_READ = 64 * 1024;

/**
 * Push requests over undici's `request()` with an Agent of its own
 * (keep-alive pools per origin), never the global fetch: measured here, it
 * used about a third of fetch's CPU per request, and an undici Agent mixed
 * into the global fetch clashes across majors. No redirect is followed
 * (App Engine did not); the response body is read up to a cap and dropped.
 */
export class HttpDelivery implements PushTransport {
  readonly #agent: Agent;

  constructor(options: { readonly connectionsPerOrigin?: number } = {}) {
    this.#agent = new Agent({
      keepAliveTimeout: 30_000,
      connections: options.connectionsPerOrigin ?? 256,
      pipelining: 1,
    });
  }

  async send(req: PushHttpRequest): Promise<PushHttpResult> {
    const deadline = AbortSignal.timeout(req.deadlineMs);
    const signal = req.signal ? AbortSignal.any([deadline, req.signal]) : deadline;
    const headers: string[] = [];
    for (const [name, value] of req.headers) headers.push(name, value);
    try {
      const response = await request(req.url, {
        dispatcher: this.#agent,
        method: req.method as 'POST',
        headers,
        body: req.body,
        signal,
        headersTimeout: req.deadlineMs,
        bodyTimeout: req.deadlineMs,
      });
      const failed = response.statusCode < 200 || response.statusCode >= 300;
      const bodyExcerpt = failed ? await excerpt(response.body) : null;
      await response.body.dump({ limit: MAX_RESPONSE_READ }).catch(() => {});
      return {
        status: response.statusCode,
        retryAfterSeconds: retryAfter(response.headers['retry-after']),
        error: null,
        bodyExcerpt,
      };
    } catch (error) {
      return { status: null, retryAfterSeconds: null, error: describe(error, deadline.aborted) };
    }
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

/**
 * The first RESPONSE_EXCERPT_BYTES of a failed response's body, as UTF-8
 * text (a character cut at the end is dropped), for the attempt history:
 * what the handler said went wrong. Null when the body is empty or cannot
 * be read in time; the rest is dumped with the connection as before.
 */
async function excerpt(body: AsyncIterable<Buffer>): Promise<string | null> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      bytes += chunk.byteLength;
      if (bytes >= RESPONSE_EXCERPT_BYTES) break;
    }
  } catch {
    // A body cut short or timed out: what came is still the handler's message.
  }
  if (bytes === 0) return null;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(
    Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES),
  );
  return text.replace(/\uFFFD$/, '');
}

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date. */
function retryAfter(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return null;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}

function describe(error: unknown, timedOut: boolean): string {
  if (timedOut) return 'deadline exceeded';
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${message}`.slice(0, 200) : message.slice(0, 200);
}
