import type { Context } from 'hono';
import { isQueueError, type ErrorCode } from '../../core/errors.js';
import { HttpError } from '../http-error.js';
import { noteError } from '../request-notes.js';

/** google.rpc.Code by name, with the HTTP status Google's REST front end gives each. */
const CODES = {
  INVALID_ARGUMENT: [3, 400],
  DEADLINE_EXCEEDED: [4, 504],
  NOT_FOUND: [5, 404],
  ALREADY_EXISTS: [6, 409],
  PERMISSION_DENIED: [7, 403],
  RESOURCE_EXHAUSTED: [8, 429],
  FAILED_PRECONDITION: [9, 400],
  UNIMPLEMENTED: [12, 501],
  INTERNAL: [13, 500],
  UNAVAILABLE: [14, 503],
  UNAUTHENTICATED: [16, 401],
} as const;

export type RpcCode = keyof typeof CODES;

/** An error in Cloud Tasks' own words, for the cases the core's codes do not word as Cloud Tasks does. */
export class RpcError extends Error {
  readonly code: RpcCode;
  constructor(code: RpcCode, message: string) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
  }
}

/**
 * The core's error codes as google.rpc codes: a `Record` over every code,
 * so a code added to the core without one here fails the typecheck. The
 * same table will serve gRPC's status codes.
 */
export const RPC_CODE: Readonly<Record<ErrorCode, RpcCode>> = {
  UNKNOWN_QUEUE: 'NOT_FOUND',
  UNKNOWN_TASK: 'NOT_FOUND',
  TRANSIENT_ERROR: 'UNAVAILABLE',
  INTERNAL_ERROR: 'INTERNAL',
  TASK_TOO_LARGE: 'INVALID_ARGUMENT',
  INVALID_TASK_NAME: 'INVALID_ARGUMENT',
  INVALID_QUEUE_NAME: 'INVALID_ARGUMENT',
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  TASK_ALREADY_EXISTS: 'ALREADY_EXISTS',
  TOMBSTONED_TASK: 'ALREADY_EXISTS',
  INVALID_ETA: 'INVALID_ARGUMENT',
  INVALID_REQUEST: 'INVALID_ARGUMENT',
  DUPLICATE_TASK_NAME: 'INVALID_ARGUMENT',
  TOO_MANY_TASKS: 'INVALID_ARGUMENT',
  INVALID_PAYLOAD: 'INVALID_ARGUMENT',
  INVALID_QUEUE_MODE: 'FAILED_PRECONDITION',
  TASK_LEASE_EXPIRED: 'FAILED_PRECONDITION',
  INVALID_TAG: 'INVALID_ARGUMENT',
  STORAGE_LIMIT_EXCEEDED: 'RESOURCE_EXHAUSTED',
  DEADLINE_EXCEEDED: 'DEADLINE_EXCEEDED',
  INVALID_CONFIG: 'INTERNAL',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  QUEUE_PAUSED: 'FAILED_PRECONDITION',
  QUEUE_ALREADY_EXISTS: 'ALREADY_EXISTS',
  QUEUE_NAME_HELD: 'FAILED_PRECONDITION',
  QUEUE_OWNED_ELSEWHERE: 'FAILED_PRECONDITION',
};

/** HTTP statuses of the v1beta2 shell's own errors (a body too large, bad JSON) as rpc codes. */
function codeOfStatus(status: number): RpcCode {
  if (status === 404) return 'NOT_FOUND';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 409) return 'ALREADY_EXISTS';
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 503) return 'UNAVAILABLE';
  if (status >= 500) return 'INTERNAL';
  return 'INVALID_ARGUMENT';
}

/**
 * Any error as google.rpc.Status in JSON, `{"error":{"code":404,"message":...,"status":"NOT_FOUND"}}`,
 * the body Google's REST clients read. An error that is no error of ours
 * (a bug) is a bare INTERNAL; its message stays on the server.
 */
export function writeRpcError(c: Context, error: unknown): Response {
  let code: RpcCode = 'INTERNAL';
  let message = 'Internal error encountered.';
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8' };
  if (error instanceof RpcError) {
    code = error.code;
    message = error.message;
  } else if (isQueueError(error)) {
    code = RPC_CODE[error.code];
    if (code !== 'INTERNAL') message = error.message;
    const challenge = error.details.wwwAuthenticate;
    if (typeof challenge === 'string') headers['www-authenticate'] = challenge;
  } else if (error instanceof HttpError) {
    code = codeOfStatus(error.status);
    if (code !== 'INTERNAL') message = error.message;
    Object.assign(headers, error.headers);
  }
  const status = CODES[code][1];
  if (status >= 500) noteError(c, error);
  if (status === 503) headers['retry-after'] = '1';
  return new Response(JSON.stringify({ error: { code: status, message, status: code } }, null, 2), {
    status,
    headers,
  });
}
