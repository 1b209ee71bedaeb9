/**
 * An error answer of a taskqueue server (Google's error body,
 * `{"error": {"code", "message", "errors": [{"reason", ...}]}}`), or a
 * failure to reach it (status 0), as one typed error.
 */
export class TaskQueueApiError extends Error {
  /** HTTP status; 0 when no answer came (connection refused, reset, aborted). */
  readonly status: number;
  /** Google's `reason` (notFound, leaseExpired, duplicate, backendError...), or `networkError`. */
  readonly reason: string;
  /** Seconds the server asked to wait (`Retry-After`), when it did. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    status: number,
    reason: string,
    message: string,
    options: { retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TaskQueueApiError';
    this.status = status;
    this.reason = reason;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The lease was lost: it ran out and another took it, or the task was deleted (400 leaseExpired, 404). */
  get leaseLost(): boolean {
    return this.reason === 'leaseExpired' || this.status === 404;
  }

  /** The server (or the way to it) cannot answer now: back off and try again. */
  get retryable(): boolean {
    return (
      this.status === 0 || this.status === 502 || this.status === 503 || this.status === 504 || this.status === 429
    );
  }
}

/** Reads an error answer into a TaskQueueApiError; a body that is not Google's envelope keeps the status. */
export function apiError(status: number, text: string, retryAfterHeader: string | null): TaskQueueApiError {
  let reason = status === 503 ? 'backendError' : 'error';
  let message = `HTTP ${status}`;
  try {
    const envelope = JSON.parse(text) as { error?: { message?: unknown; errors?: { reason?: unknown }[] } };
    if (typeof envelope.error?.message === 'string') message = envelope.error.message;
    const first = envelope.error?.errors?.[0]?.reason;
    if (typeof first === 'string') reason = first;
  } catch {
    // Not the envelope (a proxy's page): the status says enough.
  }
  const retryAfter = retryAfterSeconds(retryAfterHeader);
  return new TaskQueueApiError(
    status,
    reason,
    `${message} (HTTP ${status})`,
    retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter },
  );
}

/** `Retry-After` in seconds: a number of seconds or an HTTP date. */
function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}
