import { Agent, type Dispatcher } from 'undici';

/** One call of the REST API as the client makes it. */
export interface HttpCall {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Path and query, below the origin (the base URL's path prefix included). */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  /**
   * Ends the call while its answer has not begun to come; once its head
   * has come the answer is read to the end (within the deadline). The
   * server may have acted already: a lease answered is tasks leased, and
   * thrown away they would stay leased to nobody for the whole lease.
   */
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
 * across undici majors. `dispatch` with a handler of ours (AnswerHandler)
 * rather than `request`: the answer's body is gathered into one string
 * without a Readable stream per call, which `request` builds and which
 * made the REST runner's client slower per call than the bench's raw
 * socket loop. The deadline is undici's per-request head and body
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

  send(call: HttpCall): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      if (call.signal?.aborted) return reject(call.signal.reason as Error);
      const options = {
        origin: this.#origin,
        path: call.path,
        method: call.method,
        headers: call.headers,
        body: call.body ?? null,
        headersTimeout: call.deadlineMs,
        bodyTimeout: call.deadlineMs,
      };
      this.#agent.dispatch(options, new AnswerHandler(call.signal, resolve, reject));
    });
  }
}

/** Gathers one answer of a dispatched call; aborts the call when its signal does, unless the answer has begun to come. */
class AnswerHandler implements Dispatcher.DispatchHandler {
  readonly #signal: AbortSignal | undefined;
  readonly #resolve: (answer: HttpAnswer) => void;
  readonly #reject: (error: Error) => void;
  #controller: Dispatcher.DispatchController | null = null;
  #onAbort: (() => void) | null = null;
  #status = 0;
  #retryAfter: string | null = null;
  #chunks: Buffer[] = [];
  #settled = false;

  constructor(signal: AbortSignal | undefined, resolve: (answer: HttpAnswer) => void, reject: (error: Error) => void) {
    this.#signal = signal;
    this.#resolve = resolve;
    this.#reject = reject;
    if (signal) {
      this.#onAbort = () => {
        // The head came: the server answered, and the answer is taken (see HttpCall.signal).
        if (this.#status !== 0) return;
        const reason = signal.reason as Error;
        this.#controller?.abort(reason);
        // Not yet sent (waiting for a connection): the call ends here all the same.
        this.#fail(reason);
      };
      signal.addEventListener('abort', this.#onAbort, { once: true });
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#settled) controller.abort(this.#signal?.reason as Error);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // A 1xx answer comes before the real one: only the last counts.
    this.#status = statusCode;
    this.#chunks = [];
    const retryAfter = headers['retry-after'];
    this.#retryAfter = (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settle();
    const chunks = this.#chunks;
    const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
    this.#resolve({ status: this.#status, text, retryAfter: this.#retryAfter });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(error);
  }

  #fail(error: Error): void {
    if (this.#settled) return;
    this.#settle();
    this.#reject(error);
  }

  #settle(): void {
    this.#settled = true;
    if (this.#onAbort) this.#signal!.removeEventListener('abort', this.#onAbort);
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
    const callSignal = call.signal;
    if (callSignal === undefined) return this.#send(call, deadline);
    if (callSignal.aborted) throw callSignal.reason as Error;
    // The caller's abort reaches fetch only until the answer's head comes (see HttpCall.signal).
    const beforeHead = new AbortController();
    const onAbort = () => beforeHead.abort(callSignal.reason);
    callSignal.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.#send(call, AbortSignal.any([beforeHead.signal, deadline]), () =>
        callSignal.removeEventListener('abort', onAbort),
      );
    } finally {
      callSignal.removeEventListener('abort', onAbort);
    }
  }

  async #send(call: HttpCall, signal: AbortSignal, headCame: () => void = () => {}): Promise<HttpAnswer> {
    const response = await this.#fetch(`${this.#origin}${call.path}`, {
      method: call.method,
      headers: call.headers,
      ...(call.body === undefined ? {} : { body: call.body }),
      signal,
    });
    headCame();
    return { status: response.status, text: await response.text(), retryAfter: response.headers.get('retry-after') };
  }
}
