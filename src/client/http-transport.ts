import { Agent } from 'undici';

/** One call of the REST API as the client makes it. */
export interface HttpCall {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Path and query, below the origin (the base URL's path prefix included). */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  readonly signal: AbortSignal | undefined;
  /** Longest wait for the answer's head, and between chunks of its body (ms). */
  readonly deadlineMs: number;
}

/** An answer: its status, body text and `Retry-After`. */
export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
  readonly retryAfter: string | null;
}

/** How the client reaches the server: undici by default, or a fetch the caller gave. */
export interface HttpTransport {
  send(call: HttpCall): Promise<HttpAnswer>;
}

/**
 * Calls over undici's dispatcher API with an Agent of the client's own
 * (keep-alive pool per origin), never the global fetch: in the runner bench
 * fetch cost the client's process more CPU per request than the server
 * spent answering it, and an Agent handed to the global fetch clashes
 * across undici majors. The deadline is undici's per-request head and body
 * timeouts (its coarse shared timer, no timer of ours per call).
 */
export class UndiciTransport implements HttpTransport {
  readonly #agent: Agent;
  readonly #origin: string;

  constructor(origin: string) {
    this.#origin = origin;
    // Idle sockets are unref'd by undici: a client left open keeps no process alive.
    this.#agent = new Agent({ keepAliveTimeout: 4_000, connections: 128, pipelining: 1 });
  }

  async send(call: HttpCall): Promise<HttpAnswer> {
    const response = await this.#agent.request({
      origin: this.#origin,
      path: call.path,
      method: call.method,
      headers: call.headers,
      body: call.body ?? null,
      signal: call.signal ?? null,
      headersTimeout: call.deadlineMs,
      bodyTimeout: call.deadlineMs,
    });
    const text = await response.body.text();
    const retryAfter = response.headers['retry-after'];
    return { status: response.statusCode, text, retryAfter: (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null };
  }
}

/** Calls through a fetch the caller gave (a proxy's, a test's), with the deadline as an abort signal. */
export class FetchTransport implements HttpTransport {
  readonly #fetch: typeof fetch;
  readonly #origin: string;

  constructor(origin: string, fetchFunction: typeof fetch) {
    this.#origin = origin;
    this.#fetch = fetchFunction;
  }

  async send(call: HttpCall): Promise<HttpAnswer> {
    const deadline = AbortSignal.timeout(call.deadlineMs);
    const response = await this.#fetch(`${this.#origin}${call.path}`, {
      method: call.method,
      headers: call.headers,
      ...(call.body === undefined ? {} : { body: call.body }),
      signal: call.signal ? AbortSignal.any([call.signal, deadline]) : deadline,
    });
    return { status: response.status, text: await response.text(), retryAfter: response.headers.get('retry-after') };
  }
}
