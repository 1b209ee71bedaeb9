import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { errorParts } from '../error-response.js';

/** The answer to one request of a batch. */
export interface PartResponse {
  readonly status: number;
  /** Lower-case names, sorted (as a Response's Headers iterate). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer | string;
}

const JSON_TYPE = 'application/json; charset=UTF-8';
const EMPTY = Buffer.alloc(0);

/**
 * A part's error answer, exactly as the route would have written it
 * (`writeError`): Google's envelope, indented unless `prettyPrint=false`,
 * and the error's own headers (`Retry-After`, `WWW-Authenticate`). Inner
 * responses are never gzip-encoded: the batch response as a whole is.
 */
export function errorPart(error: unknown, pretty: boolean, extraHeaders: Record<string, string> = {}): PartResponse {
  const { status, item, headers } = errorParts(error);
  const envelope = { error: { errors: [item], code: status, message: item.message } };
  const all: Record<string, string> = {
    'content-type': JSON_TYPE,
    vary: 'Accept-Encoding, User-Agent',
    ...headers,
    ...extraHeaders,
  };
  return { status, headers: sortedHeaders(all), body: JSON.stringify(envelope, null, pretty ? 2 : undefined) };
}

export function sortedHeaders(headers: Record<string, string>): Array<[string, string]> {
  return Object.entries(headers)
    .map(([name, value]): [string, string] => [name.toLowerCase(), value])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * The part's Content-ID in the answer: Google's rule is `response-` before
 * the request's id, inside the angle brackets when it had them
 * (`<item1:12930812@barnyard.example.com>` answers as
 * `<response-item1:12930812@barnyard.example.com>`).
 */
export function responseContentId(contentId: string): string {
  return contentId.startsWith('<') && contentId.endsWith('>') && contentId.length >= 2
    ? `<response-${contentId.slice(1, -1)}>`
    : `response-${contentId}`;
}

/** A boundary that occurs in none of the bodies (random, so a clash is all but impossible; checked anyway). */
function freshBoundary(bodies: ReadonlyArray<Buffer | string>): string {
  for (;;) {
    // randomUUID draws from a cached pool: far cheaper than randomBytes per response.
    const boundary = `batch_${randomUUID()}`;
    if (!bodies.some((body) => body.includes(boundary))) return boundary;
  }
}

/**
 * The batch response body: one `application/http` part per request, in the
 * order of the request, each a whole HTTP/1.1 response with its
 * Content-Length. Part headers are Latin-1 (as they were read); bodies are
 * sent as they are (strings as UTF-8).
 */
export function writeMultipart(
  responses: readonly PartResponse[],
  contentIds: ReadonlyArray<string | undefined>,
): { readonly boundary: string; readonly body: Buffer } {
  const boundary = freshBoundary(responses.map((r) => r.body));
  const chunks: Buffer[] = [];
  let head = '';
  responses.forEach((response, i) => {
    const body =
      typeof response.body !== 'string' ? response.body : response.body === '' ? EMPTY : Buffer.from(response.body);
    const id = contentIds[i];
    head += `--${boundary}\r\nContent-Type: application/http\r\n`;
    if (id !== undefined) head += `Content-ID: ${responseContentId(id)}\r\n`;
    head += `\r\nHTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Unknown'}\r\n`;
    for (const [name, value] of response.headers) head += `${name}: ${value}\r\n`;
    head += `content-length: ${body.byteLength}\r\n\r\n`;
    if (body.byteLength === 0) {
      head += '\r\n';
      return;
    }
    chunks.push(Buffer.from(head, 'latin1'), body);
    head = '\r\n';
  });
  head += `--${boundary}--\r\n`;
  chunks.push(Buffer.from(head, 'latin1'));
  return { boundary, body: Buffer.concat(chunks) };
}
