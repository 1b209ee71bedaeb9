import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isQueueError, type ErrorCode } from '../core/errors.js';
import type { Viewer } from './console-viewer.js';
import { ErrorPage } from './error-page.js';
import { renderPage } from './render-page.js';

/** The status a failed console request answers with, by QueueError code. */
const STATUS: Partial<Record<ErrorCode, ContentfulStatusCode>> = {
  UNKNOWN_QUEUE: 404,
  UNKNOWN_TASK: 404,
  TOMBSTONED_TASK: 404,
  TASK_ALREADY_EXISTS: 409,
  STORAGE_LIMIT_EXCEEDED: 409,
  PERMISSION_DENIED: 403,
  UNAUTHENTICATED: 401,
  TRANSIENT_ERROR: 503,
  DEADLINE_EXCEEDED: 504,
  INTERNAL_ERROR: 500,
};

/** Any error as a page: a QueueError's own message (written for callers); anything else, no detail. */
export function errorPage(c: Context, error: unknown, viewer: Viewer | null = null): Promise<Response> {
  if (isQueueError(error)) {
    return showError(c, viewer, STATUS[error.code] ?? 400, 'That did not work', error.message);
  }
  return showError(
    c,
    viewer,
    500,
    'Something went wrong',
    'The console could not do that because of an unexpected error.',
  );
}

export function showError(
  c: Context,
  viewer: Viewer | null,
  status: ContentfulStatusCode,
  title: string,
  message: string,
  back?: string,
): Promise<Response> {
  return renderPage(
    c,
    { title, viewer, body: <ErrorPage title={title} message={message} {...(back ? { back } : {})} /> },
    status,
  );
}
