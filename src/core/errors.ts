/**
 * The one error type of the service. Its codes follow App Engine's
 * `TaskQueueServiceError.ErrorCode` names so that callers who know the
 * original service recognise them; each edge translates to and from it once
 * (SQLSTATE -> QueueError in `store/translate-error.ts`, QueueError -> HTTP
 * status in `http/error-status.ts`).
 */
export const ERROR_CODES = [
  'UNKNOWN_QUEUE',
  'TRANSIENT_ERROR',
  'INTERNAL_ERROR',
  'TASK_TOO_LARGE',
  'INVALID_TASK_NAME',
  'INVALID_QUEUE_NAME',
  'PERMISSION_DENIED',
  'TASK_ALREADY_EXISTS',
  'TOMBSTONED_TASK',
  'INVALID_ETA',
  'INVALID_REQUEST',
  'UNKNOWN_TASK',
  'DUPLICATE_TASK_NAME',
  'TOO_MANY_TASKS',
  'INVALID_PAYLOAD',
  'INVALID_QUEUE_MODE',
  'TASK_LEASE_EXPIRED',
  'INVALID_TAG',
  'STORAGE_LIMIT_EXCEEDED',
  'DEADLINE_EXCEEDED',
  'INVALID_CONFIG',
  'UNAUTHENTICATED',
  // Not App Engine's: an in-process lease of a paused queue (REST answers no tasks instead).
  'QUEUE_PAUSED',
  // Not App Engine's: queues made through the Cloud Tasks API (api-queues.ts).
  'QUEUE_ALREADY_EXISTS',
  /** A deleted API-made queue's name, held before it can be made again. */
  'QUEUE_NAME_HELD',
  /** A queue another source defines (the file's, changed through the API). */
  'QUEUE_OWNED_ELSEWHERE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Extra, machine-readable facts about an error (which task, which limit). */
export interface QueueErrorDetails {
  readonly queue?: string;
  readonly task?: string;
  readonly field?: string;
  readonly limit?: number;
  readonly [key: string]: unknown;
}

/** An error the service raises on purpose; `code` says what went wrong. */
export class QueueError extends Error {
  readonly code: ErrorCode;
  readonly details: QueueErrorDetails;

  constructor(code: ErrorCode, message: string, details: QueueErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'QueueError';
    this.code = code;
    this.details = details;
  }

  /** True when the caller should back off and try again later (spec section 7). */
  get retryable(): boolean {
    return this.code === 'TRANSIENT_ERROR' || this.code === 'DEADLINE_EXCEEDED';
  }
}

/** Narrowing helper that also works across duplicated module copies. */
export function isQueueError(value: unknown, code?: ErrorCode): value is QueueError {
  if (!(value instanceof Error) || value.name !== 'QueueError') return false;
  const actual = (value as Partial<QueueError>).code;
  return typeof actual === 'string' && (code === undefined || actual === code);
}
