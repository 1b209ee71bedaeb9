import type { ErrorCode } from '../core/errors.js';

/** What a QueueError becomes on the wire: an HTTP status and Google's `reason` string. */
export interface ErrorStatus {
  readonly status: number;
  readonly reason: string;
}

/**
 * The one translation of QueueError codes to HTTP. It is a `Record` over
 * every ErrorCode, so a code added to the core without a status here fails
 * the typecheck instead of turning into a 500 at run time.
 *
 * Choices worth knowing:
 * - TASK_ALREADY_EXISTS and TOMBSTONED_TASK are App Engine's "item exists"
 *   error: 409 `duplicate` (the name is held; a retry with the same name
 *   cannot succeed until the tombstone expires). Routes that read, modify or
 *   delete a task by name report a tombstoned name as 404 instead (see
 *   `missing-task.ts`): for them the task is simply gone.
 * - TASK_LEASE_EXPIRED is 400, as AppScale and the SDK stub answer it.
 * - STORAGE_LIMIT_EXCEEDED is 507 Insufficient Storage, not 413: the request
 *   itself is fine, the queue's `<storage-limit>` is full, and the same
 *   request can succeed once consumers delete tasks. 413 would tell the
 *   client to shrink a request that is not too large.
 * - QUEUE_PAUSED never reaches the wire from tasks.lease: a lease of a
 *   paused queue answers 200 with no tasks, as App Engine's paused pull
 *   queues did (the route turns the code into an empty result). The 409
 *   here is for any other route that might raise it.
 * - TRANSIENT_ERROR and DEADLINE_EXCEEDED are 503 and carry `Retry-After`
 *   (spec section 7: back off and retry).
 */
export const ERROR_STATUS: Readonly<Record<ErrorCode, ErrorStatus>> = {
  UNKNOWN_QUEUE: { status: 404, reason: 'notFound' },
  UNKNOWN_TASK: { status: 404, reason: 'notFound' },
  TASK_ALREADY_EXISTS: { status: 409, reason: 'duplicate' },
  TOMBSTONED_TASK: { status: 409, reason: 'duplicate' },
  DUPLICATE_TASK_NAME: { status: 400, reason: 'invalid' },
  INVALID_TASK_NAME: { status: 400, reason: 'invalid' },
  INVALID_QUEUE_NAME: { status: 400, reason: 'invalid' },
  INVALID_ETA: { status: 400, reason: 'invalid' },
  INVALID_REQUEST: { status: 400, reason: 'badRequest' },
  INVALID_PAYLOAD: { status: 400, reason: 'invalid' },
  INVALID_TAG: { status: 400, reason: 'invalid' },
  INVALID_QUEUE_MODE: { status: 400, reason: 'invalidQueueMode' },
  TOO_MANY_TASKS: { status: 400, reason: 'invalid' },
  TASK_LEASE_EXPIRED: { status: 400, reason: 'leaseExpired' },
  TASK_TOO_LARGE: { status: 413, reason: 'requestTooLarge' },
  STORAGE_LIMIT_EXCEEDED: { status: 507, reason: 'quotaExceeded' },
  UNAUTHENTICATED: { status: 401, reason: 'authError' },
  PERMISSION_DENIED: { status: 403, reason: 'forbidden' },
  TRANSIENT_ERROR: { status: 503, reason: 'backendError' },
  DEADLINE_EXCEEDED: { status: 503, reason: 'backendError' },
  INTERNAL_ERROR: { status: 500, reason: 'internalError' },
  INVALID_CONFIG: { status: 500, reason: 'internalError' },
  QUEUE_PAUSED: { status: 409, reason: 'queuePaused' },
  QUEUE_ALREADY_EXISTS: { status: 409, reason: 'duplicate' },
  QUEUE_NAME_HELD: { status: 400, reason: 'failedPrecondition' },
  QUEUE_OWNED_ELSEWHERE: { status: 400, reason: 'failedPrecondition' },
};

/** Seconds a client should wait after a 503 before trying again. */
export const RETRY_AFTER_SECONDS = 1;
