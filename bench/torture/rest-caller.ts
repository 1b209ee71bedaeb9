import type { ServerSlot } from './server-fleet.js';

/** One HTTP exchange as the client saw it; times are the client's clock, ms since the epoch (fractional). */
export interface Exchange {
  readonly server: number;
  readonly method: string;
  readonly path: string;
  readonly start: number;
  readonly end: number;
  /** HTTP status, or 0 when no answer came (connection refused/reset, or timeout). */
  readonly status: number;
  readonly body: Buffer;
  readonly headers: Headers | null;
  /** 'connection' | 'timeout' when status is 0. */
  readonly failure: 'connection' | 'timeout' | null;
}

export interface CallOptions {
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
}

/** A 5xx or an unanswered request, kept for classification against the outage windows. */
export type Incident = Omit<Exchange, 'body' | 'headers'> & {
  readonly body: string;
};

/**
 * The one way the harness speaks HTTP: picks a server, bounds the request
 * by a timeout (a hang is a failure of its own, not a slow success), and
 * counts every answer. Clocks: `performance.timeOrigin + performance.now()`,
 * the same clock as the database's now() on this machine, at sub-ms resolution.
 */
export class RestCaller {
  readonly #slots: readonly ServerSlot[];
  readonly #timeoutMs: number;
  readonly #authorization: string;
  completed = 0;
  readonly statusCounts = new Map<number, number>();
  readonly incidents: Incident[] = [];
  connectionFailures = 0;
  timeouts = 0;
  /** Latencies (ms) of answered requests, by the second they ended in (for drift over a soak). */
  latencies: number[] = [];

  constructor(slots: readonly ServerSlot[], authorization: string, timeoutMs = 15_000) {
    this.#slots = slots;
    this.#timeoutMs = timeoutMs;
    this.#authorization = authorization;
  }

  get slotCount(): number {
    return this.#slots.length;
  }

  /** Calls server `server` (an index; any other number picks one at random). */
  async call(method: string, path: string, options: CallOptions = {}, server = -1): Promise<Exchange> {
    const index = server >= 0 && server < this.#slots.length ? server : Math.floor(Math.random() * this.#slots.length);
    const slot = this.#slots[index]!;
    const start = now();
    let status = 0;
    let body = Buffer.alloc(0);
    let headers: Headers | null = null;
    let failure: Exchange['failure'] = null;
    try {
      const response = await fetch(slot.url + path, {
        method,
        headers: { authorization: this.#authorization, ...options.headers },
        body: options.body,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      body = Buffer.from(await response.arrayBuffer());
      status = response.status;
      headers = response.headers;
    } catch (error) {
      failure = isTimeout(error) ? 'timeout' : 'connection';
    }
    const end = now();
    if (status > 0) {
      this.completed += 1;
      this.statusCounts.set(status, (this.statusCounts.get(status) ?? 0) + 1);
      this.latencies.push(end - start);
    } else if (failure === 'timeout') {
      this.timeouts += 1;
    } else {
      this.connectionFailures += 1;
    }
    if (status >= 500 || failure === 'timeout') {
      this.incidents.push({
        server: index,
        method,
        path,
        start,
        end,
        status,
        failure,
        body: body.toString('utf8', 0, 300),
      });
    }
    return { server: index, method, path, start, end, status, body, headers, failure };
  }

  /** Empties the latency list and answers it (the soak reads it once per interval). */
  takeLatencies(): number[] {
    const taken = this.latencies;
    this.latencies = [];
    return taken;
  }
}

/** Wall-clock milliseconds with sub-millisecond resolution. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}
