import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import { hostileRequest, type HostileRequest } from './hostile-requests.js';
import { batchAnswers } from './multipart-batch.js';
import { payloadOf } from './payloads.js';
import type { TestBed } from './test-bed.js';
import { MAIN_QUEUE, MAX_PAYLOAD, queuePath } from './workload.js';

export interface FuzzReport {
  readonly requests: number;
  /** Requests the HTTP client itself refused to send (an invalid header value, say): not the server's doing. */
  readonly unsendable: number;
  /** Requests with a large body whose connection closed before the client read the early answer (server alive). */
  readonly closedOnOversizedBody: number;
  readonly statusCounts: Map<number, number>;
  /** The first failing request fast-check found and shrank, or null. */
  readonly counterexample: string | null;
  readonly crashes: string[];
  readonly rssStartBytes: number;
  readonly rssPeakBytes: number;
  readonly rssEndBytes: number;
  readonly seconds: number;
}

/** A body larger than the socket buffers take at once: the server may answer before it is all sent. */
const LARGE_BODY = 256 * 1024;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/**
 * Sends the request exactly as generated (node:http, so methods and headers
 * are not normalised away), each on a connection of its own: a server may
 * rightly close a connection after an error, and a kept-alive socket would
 * blame the next, innocent request.
 */
function send(port: number, request: HostileRequest): Promise<Answer | 'unsendable' | 'no-answer'> {
  return new Promise((resolve) => {
    let req;
    try {
      // A body always goes with its Content-Length: node sends the body of a GET or DELETE raw, without
      // one, and the server rightly takes those bytes for the next request (Node's own 400, then close).
      const headers = request.body
        ? { ...request.headers, 'content-length': String(request.body.length) }
        : request.headers;
      req = httpRequest({
        host: '127.0.0.1',
        port,
        method: request.method,
        path: request.path,
        headers,
        timeout: 90_000,
        agent: false,
      });
    } catch {
      resolve('unsendable');
      return;
    }
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', () => resolve('no-answer'));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve('no-answer'));
    try {
      req.end(request.body ?? undefined);
    } catch {
      resolve('unsendable');
    }
  });
}

/** 5xx answers other than 507 quotaExceeded (a full queue's one honest 5xx), in the answer or any part of a batch answer. */
function serverErrors(answer: Answer): string[] {
  const bad = (status: number, body: string) => status >= 500 && !(status === 507 && body.includes('quotaExceeded'));
  const errors: string[] = [];
  const text = answer.body.toString('utf8');
  if (bad(answer.status, text)) errors.push(`${answer.status}: ${text.slice(0, 300)}`);
  const type = answer.headers['content-type'];
  if (answer.status === 200 && typeof type === 'string' && type.startsWith('multipart/mixed')) {
    for (const part of batchAnswers(type, answer.body))
      if (bad(part.status, part.body)) errors.push(`part ${part.status}: ${part.body.slice(0, 300)}`);
  }
  return errors;
}

/**
 * Generated hostile requests (fast-check) over every route and parameter
 * of the discovery document, batches (well-formed and broken), fields,
 * method overrides and headers, against one server. The property: every
 * answer is below 500 (507 quotaExceeded aside), the process never exits,
 * and its memory stays bounded. A failure is shrunk to a minimal request.
 */
export async function runFuzz(
  bed: TestBed,
  runs: number,
  seed: number,
  log: (line: string) => void,
): Promise<FuzzReport> {
  const slot = bed.fleet.slots[0]!;
  const started = performance.now();
  // Tasks the generated requests name (seed-0..2), so gets, updates and deletes sometimes find one.
  for (let i = 0; i < 3; i += 1) {
    const name = `seed-${i}`;
    await bed.caller.call(
      'POST',
      `${queuePath(MAIN_QUEUE)}/tasks`,
      {
        body: JSON.stringify({ id: name, payloadBase64: payloadOf(name, MAX_PAYLOAD).toString('base64') }),
        headers: { 'content-type': 'application/json' },
      },
      0,
    );
  }
  const statusCounts = new Map<number, number>();
  let requests = 0;
  let unsendable = 0;
  let closedOnOversizedBody = 0;
  const rssStartBytes = slot.rssBytes();
  let rssPeakBytes = rssStartBytes;
  const property = fc.asyncProperty(hostileRequest({ token: bed.token }), async (request) => {
    const answer = await send(slot.port, request);
    requests += 1;
    if (requests % 200 === 0) rssPeakBytes = Math.max(rssPeakBytes, slot.rssBytes());
    if (requests % 2000 === 0)
      log(`  ${requests} hostile requests, server RSS ${(slot.rssBytes() / 2 ** 20).toFixed(0)} MB`);
    if (answer === 'unsendable') {
      unsendable += 1;
      return;
    }
    if (answer === 'no-answer') {
      if (slot.unexpectedExits > 0) throw new Error('the server exited');
      // A large body whose request fails early (413 over the cap, or 400/401/404 from a check made
      // before the body is read) is answered before it has all arrived, and the connection is closed:
      // a client still writing may see EPIPE or a reset instead of the answer (docs/reliability.md).
      // Counted apart, provided the server still answers.
      if ((request.body?.length ?? 0) > LARGE_BODY) {
        const health = await send(slot.port, { method: 'GET', path: '/healthz', headers: {}, body: null });
        if (typeof health === 'object' && health.status === 200) {
          closedOnOversizedBody += 1;
          return;
        }
      }
      throw new Error('no answer (connection closed without a response, or 90 s without one)');
    }
    statusCounts.set(answer.status, (statusCounts.get(answer.status) ?? 0) + 1);
    const errors = serverErrors(answer);
    if (errors.length > 0) throw new Error(errors.join('\n'));
  });
  let counterexample: string | null = null;
  const details = await fc.check(property, {
    numRuns: runs,
    seed,
    endOnFailure: false,
    interruptAfterTimeLimit: 30 * 60_000,
  });
  if (details.failed) {
    const example = details.counterexample?.[0];
    counterexample =
      `seed ${details.seed}, path ${details.counterexamplePath}: ` +
      JSON.stringify(example ? { ...example, body: example.body?.toString('latin1').slice(0, 2000) } : null) +
      `\n${String(details.errorInstance)}`;
  }
  rssPeakBytes = Math.max(rssPeakBytes, slot.rssBytes());
  return {
    requests,
    unsendable,
    closedOnOversizedBody,
    statusCounts,
    counterexample,
    crashes: slot.crashes,
    rssStartBytes,
    rssPeakBytes,
    rssEndBytes: slot.rssBytes(),
    seconds: (performance.now() - started) / 1000,
  };
}
