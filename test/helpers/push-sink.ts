import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DEFAULT_PUSH_SETTINGS,
  DEFAULT_RETRY_PARAMETERS,
  type PushQueueSettings,
  type QueueConfig,
} from '../../src/core/queue-config.js';

/** A request the sink received, as it arrived. */
export interface SunkRequest {
  readonly method: string;
  readonly url: string;
  /** Raw header pairs in arrival order (names as sent). */
  readonly rawHeaders: readonly (readonly [string, string])[];
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
  /** performance.now() when the request's headers arrived. */
  readonly at: number;
}

/** What the sink answers: a status, optional headers, or a promise of them (to hold a request in flight). */
export type SinkAnswer = { status: number; headers?: Record<string, string>; body?: string };

/**
 * A loopback HTTP server that records every request and answers by `handler`
 * (default 200). Each test starts its own.
 */
export async function startSink(
  handler: (request: SunkRequest, index: number) => SinkAnswer | Promise<SinkAnswer> = () => ({ status: 200 }),
) {
  const requests: SunkRequest[] = [];
  let concurrent = 0;
  let maxConcurrent = 0;
  /** Requests whose connection closed before they were answered (the dispatcher cut them). */
  let cut = 0;
  const arrivals = new Set<() => void>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const at = performance.now();
    concurrent++;
    maxConcurrent = Math.max(maxConcurrent, concurrent);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawHeaders: [string, string][] = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2) rawHeaders.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
      const request: SunkRequest = {
        method: req.method!,
        url: req.url!,
        rawHeaders,
        headers: req.headers,
        body: Buffer.concat(chunks),
        at,
      };
      const index = requests.length;
      requests.push(request);
      for (const arrived of [...arrivals]) arrived();
      res.on('close', () => {
        if (!res.writableFinished) cut++;
      });
      void Promise.resolve(handler(request, index)).then((answer) => {
        concurrent--;
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? 'ok');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get maxConcurrent() {
      return maxConcurrent;
    },
    get cut() {
      return cut;
    },
    /** Resolves once at least `n` requests arrived (or rejects after `timeoutMs`, an upper bound for a busy machine). */
    waitFor(n: number, timeoutMs = 30_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length >= n) {
            arrivals.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          arrivals.delete(check);
          reject(new Error(`the sink got ${requests.length} requests, expected ${n}`));
        }, timeoutMs);
        arrivals.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Sink = Awaited<ReturnType<typeof startSink>>;

/** A push queue delivering to `targetUrl`, unlimited unless `push` says otherwise. */
export function pushQueue(
  name: string,
  targetUrl: string,
  push: Partial<PushQueueSettings> = {},
  overrides: Partial<QueueConfig> = {},
): QueueConfig {
  return {
    name,
    mode: 'push',
    maxLeases: null,
    storageLimitBytes: null,
    leaseRate: null,
    retry: DEFAULT_RETRY_PARAMETERS,
    acl: { userEmails: [], writerEmails: [] },
    push: { ...DEFAULT_PUSH_SETTINGS, ratePerSecond: 1000, bucketSize: 1000, targetUrl, ...push },
    ...overrides,
  };
}
