import { HttpError, quote } from '../http-error.js';
import type { BatchPart } from './batch-parts.js';

/** One request of a batch, ready to run: its URL resolved and the outer request's headers and query applied. */
export interface InnerRequest {
  readonly method: string;
  /** The path, as a URL parser normalises it (dot segments resolved). */
  readonly path: string;
  /** The query string with its `?`, or the empty string. */
  readonly search: string;
  /** The whole URL. */
  readonly href: string;
  readonly headers: InnerHeaders;
  readonly body: Buffer;
}

/** An inner request's headers: its own, over those it inherits from the batch request. Lower-case names. */
export class InnerHeaders {
  readonly #own: ReadonlyMap<string, string>;
  readonly #inherited: ReadonlyMap<string, string>;

  constructor(own: ReadonlyMap<string, string>, inherited: ReadonlyMap<string, string>) {
    this.#own = own;
    this.#inherited = inherited;
  }

  get(name: string): string | undefined {
    return this.#own.get(name) ?? this.#inherited.get(name);
  }

  has(name: string): boolean {
    return this.#own.has(name) || this.#inherited.has(name);
  }

  /** All of them, the request's own winning. */
  entries(): Array<[string, string]> {
    const all = new Map(this.#inherited);
    for (const [name, value] of this.#own) all.set(name, value);
    return [...all];
  }
}

/** What every inner request of one batch shares. */
export interface BatchContext {
  /** `http://host:port` of the batch request. */
  readonly origin: string;
  /** The batch request's query parameters, or null when it had none. */
  readonly query: URLSearchParams | null;
  /** The batch request's headers that apply to every inner request. */
  readonly headers: ReadonlyMap<string, string>;
}

/**
 * A request target the URL parser leaves as it is: unreserved and
 * sub-delimiter characters, `:`, `@`, `/`, and `%` escapes in the query
 * only (in the path they may hide dot segments); no dot segments (checked
 * apart). Anything else goes through the parser.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*)?$/;

/**
 * Headers that describe one HTTP message or connection rather than the
 * call: never taken from the batch request, and dropped from inner ones
 * too where they make no sense inside a batch. `Accept-Encoding` is the
 * batch's business: the whole batch response is gzip-encoded when the batch
 * request qualifies, and inner responses never are (a gzip body inside a
 * multipart part is of no use to anyone).
 */
const CONNECTION_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'accept-encoding',
]);

/**
 * The batch request's headers that apply to each inner request (Google's
 * rule: all of them but the `Content-` ones; an inner request's own header
 * of the same name wins). `X-HTTP-Method-Override` is about the batch POST
 * itself and is not passed on either.
 */
export function inheritedHeaders(outer: Record<string, string>): Map<string, string> {
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(outer)) {
    const key = name.toLowerCase();
    if (key.startsWith('content-') || CONNECTION_HEADERS.has(key) || key === 'x-http-method-override') continue;
    headers.set(key, value);
  }
  return headers;
}

/**
 * Resolves a part into the request to run, or the error its part answers:
 * the target must be a path (Google: "full URLs are not allowed"), of this
 * API (`/taskqueue/v1beta2/...`: a batch goes to one API), and not a batch
 * request itself. The batch request's query parameters are added where the
 * inner request does not give the same parameter.
 */
export function innerRequest(part: BatchPart, batch: BatchContext): InnerRequest | HttpError {
  if (!part.target.startsWith('/') || part.target.startsWith('//')) {
    return new HttpError(
      400,
      'badRequest',
      `A request in a batch must name a path, not a full URL: ${quote(part.target)}`,
    );
  }
  let path: string;
  let search: string;
  let href: string;
  const question = part.target.indexOf('?');
  const simplePath = question < 0 ? part.target : part.target.slice(0, question);
  if (batch.query === null && PLAIN_TARGET.test(part.target) && !simplePath.includes('/.')) {
    // What the URL parser would make of it, without running it: nothing to normalise or escape.
    path = simplePath;
    search = question < 0 || question === part.target.length - 1 ? '' : part.target.slice(question);
    href = batch.origin + part.target;
  } else {
    let url: URL;
    try {
      url = new URL(part.target, batch.origin);
    } catch {
      return new HttpError(400, 'badRequest', `Not a valid request path: ${quote(part.target)}`);
    }
    if (batch.query) {
      const own = new Set(url.searchParams.keys());
      for (const [name, value] of batch.query) if (!own.has(name)) url.searchParams.append(name, value);
    }
    url.hash = '';
    ({ pathname: path, search, href } = url);
  }
  if (path === '/batch' || path.startsWith('/batch/')) {
    return new HttpError(400, 'badRequest', 'A batch request may not hold another batch request');
  }
  if (!path.startsWith('/taskqueue/v1beta2/')) {
    return new HttpError(
      404,
      'notFound',
      `Not Found: ${part.method} ${quote(path)} (a batch holds calls of the TaskQueue API, /taskqueue/v1beta2/...)`,
    );
  }
  for (const name of CONNECTION_HEADERS) part.headers.delete(name);
  return {
    method: part.method,
    path,
    search,
    href,
    headers: new InnerHeaders(part.headers, batch.headers),
    body: part.body,
  };
}
