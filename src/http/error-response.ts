import type { Context } from 'hono';
import { isQueueError } from '../core/errors.js';
import { ERROR_STATUS, RETRY_AFTER_SECONDS } from './error-status.js';
import { HttpError } from './http-error.js';
import { noteError } from './request-notes.js';
import { writeJsonText } from './write-json.js';

/** One entry of the envelope's `errors` list. */
interface ErrorItem {
  domain: 'global';
  reason: string;
  message: string;
  locationType?: string;
  location?: string;
}

/** Status, envelope item and headers of any error a request can end in. */
interface ErrorParts {
  readonly status: number;
  readonly item: ErrorItem;
  readonly headers: Record<string, string>;
}

/**
 * Turns an error into Google's error envelope,
 * `{"error":{"errors":[{"domain":"global","reason":...,"message":...}],"code":N,"message":...}}`,
 * the body the official client reads (`e.code`, `e.errors`). QueueErrors go
 * through ERROR_STATUS; HttpErrors carry their own status. Anything else is
 * a bug: it becomes a bare 500 "Internal error" and its message and stack
 * stay on the server.
 */
export function errorParts(error: unknown): ErrorParts {
  if (error instanceof HttpError) {
    const item: ErrorItem = { domain: 'global', reason: error.reason, message: error.message };
    if (error.location) {
      item.locationType = error.location.type;
      item.location = error.location.name;
    }
    return { status: error.status, item, headers: { ...error.headers } };
  }
  if (isQueueError(error)) {
    const { status, reason } = ERROR_STATUS[error.code];
    const headers: Record<string, string> = {};
    if (status === 503) headers['retry-after'] = String(RETRY_AFTER_SECONDS);
    // RFC 6750: every authentication failure carries its challenge, also the
    // 400 invalid_request (token in both header and query, malformed header).
    const challenge = error.details.wwwAuthenticate;
    if (typeof challenge === 'string') headers['www-authenticate'] = challenge;
    // INTERNAL_ERROR messages may describe the database; the client learns only that it failed.
    const message = status === 500 ? 'Internal error' : error.message;
    // The access control may name a more precise Google reason (keyInvalid,
    // insufficientPermissions, required) and the offending parameter.
    const detailReason = error.details.reason;
    const item: ErrorItem = {
      domain: 'global',
      reason: typeof detailReason === 'string' && status !== 500 ? detailReason : reason,
      message,
    };
    const { location, locationType } = error.details;
    if (typeof location === 'string' && typeof locationType === 'string') {
      item.location = location;
      item.locationType = locationType;
    }
    return { status, item, headers };
  }
  return { status: 500, item: { domain: 'global', reason: 'internalError', message: 'Internal error' }, headers: {} };
}

/** The error response, indented when `prettyPrint` is on. `fields` never applies to errors. */
export function writeError(c: Context, error: unknown, pretty: boolean): Promise<Response> {
  const { status, item, headers } = errorParts(error);
  // The request's log line (request-log.ts) writes it, with its stack.
  if (status >= 500) noteError(c, error);
  const envelope = { error: { errors: [item], code: status, message: item.message } };
  return writeJsonText(c, status, JSON.stringify(envelope, null, pretty ? 2 : undefined), headers);
}
