import { isQueueError, type ErrorCode } from '../core/errors.js';

/**
 * App Engine's `TaskQueueServiceError.ErrorCode` numbers, by the names the
 * SDK's taskqueue module maps to its exception classes. The service's own
 * error codes follow those names, so most translate one to one.
 */
export const SERVICE_ERROR = {
  OK: 0,
  UNKNOWN_QUEUE: 1,
  TRANSIENT_ERROR: 2,
  INTERNAL_ERROR: 3,
  TASK_TOO_LARGE: 4,
  INVALID_TASK_NAME: 5,
  INVALID_QUEUE_NAME: 6,
  INVALID_URL: 7,
  PERMISSION_DENIED: 9,
  TASK_ALREADY_EXISTS: 10,
  TOMBSTONED_TASK: 11,
  INVALID_ETA: 12,
  INVALID_REQUEST: 13,
  UNKNOWN_TASK: 14,
  DUPLICATE_TASK_NAME: 16,
  SKIPPED: 17,
  TOO_MANY_TASKS: 18,
  INVALID_PAYLOAD: 19,
  INVALID_RETRY_PARAMETERS: 20,
  INVALID_QUEUE_MODE: 21,
  TASK_LEASE_EXPIRED: 25,
  QUEUE_PAUSED: 26,
  INVALID_TAG: 27,
} as const;

/** `remote_api` RpcError codes: failures of the call itself, not of the service. */
export const RPC_ERROR = {
  UNKNOWN: 0,
  CALL_NOT_FOUND: 1,
  PARSE_ERROR: 2,
  REQUEST_TOO_LARGE: 5,
  BAD_REQUEST: 8,
} as const;

/** Our codes that have no App Engine number of the same name. */
const TRANSLATED: Partial<Record<ErrorCode, number>> = {
  STORAGE_LIMIT_EXCEEDED: SERVICE_ERROR.TRANSIENT_ERROR,
  DEADLINE_EXCEEDED: SERVICE_ERROR.TRANSIENT_ERROR,
  INVALID_CONFIG: SERVICE_ERROR.INTERNAL_ERROR,
  UNAUTHENTICATED: SERVICE_ERROR.PERMISSION_DENIED,
};

/**
 * The service error code of any failure: a QueueError by its code, anything
 * else (a bug, a lost database) INTERNAL_ERROR, which the SDK raises as
 * InternalError rather than as a failed RPC.
 */
export function serviceErrorCode(error: unknown): number {
  if (!isQueueError(error)) return SERVICE_ERROR.INTERNAL_ERROR;
  const same = (SERVICE_ERROR as Record<string, number>)[error.code];
  return same ?? TRANSLATED[error.code] ?? SERVICE_ERROR.INTERNAL_ERROR;
}

/** A failure of a whole call, answered as the envelope's application_error. */
export class ApplicationError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = 'ApplicationError';
    this.code = code;
  }
}
