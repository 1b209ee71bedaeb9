import { isQueueError } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { decodeEnvelope, encodeAnswer, type RpcAnswer, type RpcCall } from './envelope.js';
import { decodeMessage, encodeMessage, messageType } from './protocol.js';
import { ReplayWindow } from './replay-window.js';
import { ApplicationError, RPC_ERROR, serviceErrorCode } from './service-error.js';
import { TASKQUEUE_CALLS } from './taskqueue-calls.js';
import type { TaskQueueHost } from './taskqueue-host.js';

/** The path the SDK posts to (default_api_stub.py PROXY_PATH). */
export const RPC_PATH = '/rpc_http';
/** The largest envelope read: 100 tasks of 100 KiB and then some; App Engine's API calls were capped near here. */
export const MAX_ENVELOPE_BYTES = 32 * 1024 * 1024;
/** The SDK's deadline when it sends none (DEFAULT_TIMEOUT), in seconds. */
const DEFAULT_DEADLINE_SECONDS = 60;
/** RpcError DEADLINE_EXCEEDED: the SDK raises DeadlineExceededError. */
const DEADLINE_EXCEEDED = 12;
/** How long an add's answer is replayed to a byte-identical re-send: past the SDK's longest wait. */
const REPLAY_WINDOW_MS = 120_000;
const CONTENT_TYPES = ['application/octet-stream', 'application/x-protobuf', 'application/x-google-protobuf'];

export interface RpcHandlerOptions {
  readonly host: TaskQueueHost;
  readonly logger?: Logger;
  /** Default MAX_ENVELOPE_BYTES. */
  readonly maxBodyBytes?: number;
}

/**
 * The `POST /rpc_http` endpoint of App Engine's API protocol, as a fetch
 * handler. Answers are `remote_api` Response envelopes (200), failures of
 * the service as application_error and of the call as rpc_error, so the
 * SDK raises its own classes; what is not a call at all (another path or
 * method, a wrong content type, an oversized or unreadable envelope) is a
 * 4xx. Nothing is a 5xx: an unexpected failure is INTERNAL_ERROR.
 */
export function createRpcHandler(options: RpcHandlerOptions): (request: Request) => Promise<Response> {
  const logger = options.logger ?? silentLogger;
  const maxBytes = options.maxBodyBytes ?? MAX_ENVELOPE_BYTES;
  const replays = new ReplayWindow({ windowMs: REPLAY_WINDOW_MS, maxEntries: 10_000 });
  return async (request) => {
    const path = new URL(request.url).pathname;
    if (path !== RPC_PATH) return plain(404, `not found: App Engine API calls go to POST ${RPC_PATH}`);
    if (request.method !== 'POST') return plain(405, `${RPC_PATH} takes POST`, { allow: 'POST' });
    const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!CONTENT_TYPES.includes(type))
      return plain(415, `${RPC_PATH} takes application/octet-stream (a remote_api Request)`);
    const body = await readCapped(request, maxBytes);
    if (body === null) {
      return envelope(413, {
        kind: 'rpc_error',
        code: RPC_ERROR.REQUEST_TOO_LARGE,
        detail: `the envelope exceeds ${maxBytes} bytes`,
      });
    }
    const call = decodeEnvelope(body);
    if (call === null) {
      return envelope(400, {
        kind: 'rpc_error',
        code: RPC_ERROR.PARSE_ERROR,
        detail: 'the body is not a remote_api Request',
      });
    }
    const deadlineMs = deadlineOf(request.headers.get('x-google-rpc-service-deadline'));
    const run = () => withDeadline(answer(options.host, call, logger), deadlineMs);
    // Only adds are replayed: a re-sent lease or delete does what it did (a lease leases other tasks).
    if (call.service === 'taskqueue' && (call.method === 'BulkAdd' || call.method === 'Add')) {
      const bytes = await replays.answer(body, async () => {
        const result = await run();
        return result.kind === 'response' ? encodeAnswer(result) : null;
      });
      if (bytes !== null) return binary(200, bytes);
    }
    return envelope(200, await run());
  };
}

/** One decoded call's answer. */
async function answer(host: TaskQueueHost, call: RpcCall, logger: Logger): Promise<RpcAnswer> {
  const method = call.service === 'taskqueue' ? TASKQUEUE_CALLS[call.method] : undefined;
  if (method === undefined || !Object.hasOwn(TASKQUEUE_CALLS, call.method)) {
    return {
      kind: 'rpc_error',
      code: RPC_ERROR.CALL_NOT_FOUND,
      detail: `this service serves the taskqueue API only; ${call.service}.${call.method} is not served`,
    };
  }
  let request;
  try {
    request = decodeMessage(messageType(method.request), call.request);
  } catch {
    return { kind: 'rpc_error', code: RPC_ERROR.PARSE_ERROR, detail: `the ${call.method} request could not be parsed` };
  }
  try {
    const response = await method.run(host, request);
    return { kind: 'response', response: encodeMessage(messageType(method.response), response) };
  } catch (error) {
    if (error instanceof ApplicationError)
      return { kind: 'application_error', code: error.code, detail: error.message };
    if (isQueueError(error)) return { kind: 'application_error', code: serviceErrorCode(error), detail: error.message };
    logger.error({ err: error, call: `${call.service}.${call.method}` }, 'App Engine API call failed');
    return {
      kind: 'application_error',
      code: serviceErrorCode(error),
      detail: 'internal error (logged by the service)',
    };
  }
}

/** The SDK's deadline header, in milliseconds; the answer goes out half a second before it. */
function deadlineOf(header: string | null): number {
  const seconds = header === null ? Number.NaN : Number(header);
  const deadline = Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 3600) : DEFAULT_DEADLINE_SECONDS;
  return Math.max(100, deadline * 1000 - 500);
}

/** The answer, or DEADLINE_EXCEEDED when it is not ready in time (it may still complete). */
async function withDeadline(work: Promise<RpcAnswer>, ms: number): Promise<RpcAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<RpcAnswer>((resolve) => {
    timer = setTimeout(
      () => resolve({ kind: 'rpc_error', code: DEADLINE_EXCEEDED, detail: `no answer within the call's deadline` }),
      ms,
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The body, or null past `max` bytes (read as it streams: a lying or absent Content-Length cannot get past). */
async function readCapped(request: Request, max: number): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > max) return null;
  if (request.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

function envelope(status: number, answer: RpcAnswer): Response {
  return binary(status, encodeAnswer(answer));
}

function binary(status: number, bytes: Uint8Array): Response {
  return new Response(bytes, { status, headers: { 'content-type': 'application/octet-stream' } });
}

function plain(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(`${message}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } });
}
