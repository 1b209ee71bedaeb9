import { addHeaderLine, afterEmptyLine, malformed, splitMultipart } from './multipart.js';

/** Google's limit: at most 1000 calls in one batch request. */
export const MAX_BATCH_PARTS = 1000;

/** HTTP methods are tokens; upper case is what every client sends. */
const METHOD = /^[A-Z]{1,20}$/;
const VERSION = /^HTTP\/1\.[01]$/;
const NON_ASCII = /[\x80-\xff]/;
const EMPTY = Buffer.alloc(0);

/** One request of a batch, as its part carried it. */
export interface BatchPart {
  /** The part's `Content-ID`, verbatim, if it had one. */
  readonly contentId: string | undefined;
  readonly method: string;
  /** The request target: a path with an optional query (`/taskqueue/v1beta2/...?x=y`). */
  readonly target: string;
  /** The inner request's own headers, lower-case names (without Content-Length: the body has its length). */
  readonly headers: Map<string, string>;
  readonly body: Buffer;
}

/**
 * Reads a batch request body (Google's format; `boundary` from
 * `multipartBoundary`): `multipart/mixed`, each part `Content-Type:
 * application/http` with an optional `Content-ID`, holding one HTTP
 * request: a request line (`DELETE /path HTTP/1.1`, the version optional),
 * headers, an empty line and the body. The part's own headers only mark the
 * part; the request's headers are those inside it. Anything malformed is a
 * 400 for the whole batch, naming the part.
 */
export function parseBatch(boundary: string, body: Buffer): BatchPart[] {
  return splitMultipart(body, boundary, MAX_BATCH_PARTS).map(([start, end], i) => parsePart(body, start, end, i + 1));
}

function parsePart(body: Buffer, start: number, end: number, n: number): BatchPart {
  const where = new PartName(n);
  const partHeadEnd = afterEmptyLine(body, start, end);
  if (partHeadEnd < 0) throw malformed(`${where} has no empty line after its headers`);
  // Blank lines before the request line are tolerated (RFC 9112 section 2.2).
  let requestStart = partHeadEnd;
  while (requestStart < end && (body[requestStart] === 0x0d || body[requestStart] === 0x0a)) requestStart++;
  const requestHeadEnd = afterEmptyLine(body, requestStart, end);
  const contentStart = requestHeadEnd < 0 ? end : requestHeadEnd;

  // Both header blocks in one string; header text is Latin-1, as Node reads header values.
  const lines = new Lines(body.toString('latin1', start, contentStart));
  const partHeaders = new Map<string, string>();
  for (let line = lines.next(); line !== ''; line = lines.next()) addHeaderLine(partHeaders, line, where);
  const type = (partHeaders.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/http') throw malformed(`${where} must have Content-Type application/http`);
  const transfer = (partHeaders.get('content-transfer-encoding') ?? 'binary').trim().toLowerCase();
  if (transfer !== 'binary' && transfer !== '8bit' && transfer !== '7bit') {
    throw malformed(
      `${where} has Content-Transfer-Encoding ${JSON.stringify(transfer.slice(0, 40))}; only binary is supported`,
    );
  }
  let requestLine = lines.next();
  while (requestLine === '' && !lines.done) requestLine = lines.next();
  if (requestLine === '') throw malformed(`${where} holds no HTTP request`);
  // A target with UTF-8 in it (the URL parser percent-encodes it later).
  if (NON_ASCII.test(requestLine)) requestLine = Buffer.from(requestLine, 'latin1').toString('utf8');
  const space = requestLine.indexOf(' ');
  const space2 = requestLine.indexOf(' ', space + 1);
  const method = space < 0 ? requestLine : requestLine.slice(0, space);
  const target = space < 0 ? '' : requestLine.slice(space + 1, space2 < 0 ? undefined : space2);
  const version = space2 < 0 ? undefined : requestLine.slice(space2 + 1);
  if (!METHOD.test(method) || target === '' || (version !== undefined && !VERSION.test(version))) {
    throw malformed(`${where} does not start with a request line such as "DELETE /taskqueue/v1beta2/... HTTP/1.1"`);
  }
  const headers = new Map<string, string>();
  for (let line = lines.next(); line !== ''; line = lines.next()) addHeaderLine(headers, line, where.request);
  if (headers.has('transfer-encoding')) throw malformed(`the request in ${where} may not use Transfer-Encoding`);
  return {
    contentId: partHeaders.get('content-id'),
    method,
    target,
    headers,
    body: requestBody(body, contentStart, end, headers, where),
  };
}

/** The lines of a header text, without their CR; the empty string at an empty line and at the end. */
class Lines {
  readonly #text: string;
  #at = 0;
  constructor(text: string) {
    this.#text = text;
  }
  get done(): boolean {
    return this.#at >= this.#text.length;
  }
  next(): string {
    if (this.#at >= this.#text.length) return '';
    const lf = this.#text.indexOf('\n', this.#at);
    const stop = lf < 0 ? this.#text.length : lf;
    const line = this.#text.slice(
      this.#at,
      stop > this.#at && this.#text.charCodeAt(stop - 1) === 13 ? stop - 1 : stop,
    );
    this.#at = stop + 1;
    return line;
  }
}

/** How messages name a part; built only when a message needs it. */
class PartName {
  readonly #n: number;
  constructor(n: number) {
    this.#n = n;
  }
  toString(): string {
    return `part ${this.#n}`;
  }
  get request(): { toString(): string } {
    return { toString: () => `the request in part ${this.#n}` };
  }
}

/**
 * The body: `Content-Length` bytes when the request says so (anything after
 * them is padding before the next boundary), else the rest of the part less
 * trailing line ends, which writers of batch files often leave in.
 */
function requestBody(body: Buffer, start: number, end: number, headers: Map<string, string>, where: PartName): Buffer {
  const declared = headers.get('content-length');
  headers.delete('content-length');
  if (declared !== undefined) {
    const length = /^[0-9]{1,10}$/.test(declared) ? Number(declared) : Number.NaN;
    if (!(length <= end - start))
      throw malformed(`the request in ${where} has a Content-Length that does not match its body`);
    return length === 0 ? EMPTY : body.subarray(start, start + length);
  }
  let stop = end;
  while (stop > start && (body[stop - 1] === 0x0a || body[stop - 1] === 0x0d)) stop--;
  return stop === start ? EMPTY : body.subarray(start, stop);
}
