import { HttpError } from '../http-error.js';

/**
 * multipart/mixed (RFC 2046 section 5.1) as Google's batch format uses it:
 * reading a request body into its parts, and the header blocks inside a
 * part. Reading works on the raw bytes (`Buffer.indexOf`), never on one big
 * string, and accepts bare LF line ends as well as CRLF (hand-written batch
 * files often have them). Every failure is a 400 naming what is wrong.
 */

/** A header line's name: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** RFC 2046 boundary characters, 1 to 70 of them, not ending in a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

const LF = 0x0a;
const CR = 0x0d;
const HYPHEN = 0x2d;

export function malformed(message: string): HttpError {
  return new HttpError(400, 'badRequest', `Failed to parse batch request: ${message}`);
}

/**
 * The boundary of a `multipart/mixed` Content-Type (quoted or not). Any
 * other media type, or a missing or invalid boundary, is 400.
 */
export function multipartBoundary(contentType: string | undefined): string {
  const [type = '', ...params] = (contentType ?? '').split(';');
  if (type.trim().toLowerCase() !== 'multipart/mixed') {
    throw new HttpError(400, 'badRequest', 'A batch request must have Content-Type multipart/mixed with a boundary', {
      location: { type: 'header', name: 'Content-Type' },
    });
  }
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
    let value = param.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (BOUNDARY.test(value)) return value;
    break;
  }
  throw new HttpError(
    400,
    'badRequest',
    'The multipart/mixed Content-Type needs a boundary parameter of 1 to 70 valid characters',
    {
      location: { type: 'header', name: 'Content-Type' },
    },
  );
}

/** Where a part lies in the body: `[start, end)`. */
export type Span = readonly [start: number, end: number];

/**
 * Finds a multipart body's parts (headers and content), without the CRLF
 * that belongs to the next delimiter. The preamble before the first
 * delimiter and the epilogue after the closing one are ignored, as RFC 2046
 * says. More than `maxParts` parts is 400.
 */
export function splitMultipart(body: Buffer, boundary: string, maxParts: number): Span[] {
  const dash = Buffer.from(`--${boundary}`);
  const lineDash = Buffer.from(`\n--${boundary}`);
  let at = body.subarray(0, dash.length).equals(dash) ? 0 : body.indexOf(lineDash);
  if (at < 0) throw malformed('the body has no part (no line starts with "--" and the boundary)');
  if (at > 0) at += 1;
  const parts: Span[] = [];
  for (;;) {
    const after = at + dash.length;
    if (body[after] === HYPHEN && body[after + 1] === HYPHEN) break;
    // The rest of the delimiter line may hold only transport padding (spaces, tabs).
    const lineEnd = body.indexOf(LF, after);
    if (lineEnd < 0 || body.subarray(after, lineEnd).toString('latin1').trim() !== '') {
      throw malformed('a boundary line is followed by other text or by nothing');
    }
    const next = body.indexOf(lineDash, lineEnd);
    if (next < 0)
      throw malformed(`part ${parts.length + 1} is not closed (the closing "--${boundary}--" line is missing)`);
    if (parts.length === maxParts) throw malformed(`a batch may hold at most ${maxParts} requests`);
    const end = next > lineEnd && body[next - 1] === CR ? next - 1 : next;
    parts.push([lineEnd + 1, Math.max(lineEnd + 1, end)]);
    at = next + 1;
  }
  if (parts.length === 0) throw malformed('the batch holds no requests');
  return parts;
}

/**
 * Adds one `name: value` header line to `headers` (lower-case name; a name
 * given twice has its values joined with ", ", RFC 9110 section 5.3).
 * Folded lines and lines that are not `name: value` are 400.
 */
export function addHeaderLine(headers: Map<string, string>, line: string, where: { toString(): string }): void {
  const colon = line.indexOf(':');
  const name = colon > 0 ? line.slice(0, colon) : '';
  if (!TOKEN.test(name)) throw malformed(`${where} has a header line that is not "name: value"`);
  const key = name.toLowerCase();
  const value = line.slice(colon + 1).trim();
  const before = headers.get(key);
  headers.set(key, before === undefined ? value : `${before}, ${value}`);
}

/**
 * The offset just past the first empty line at or after `from` (a line
 * ending in LF or CRLF), or -1 when there is none before `to`.
 */
export function afterEmptyLine(buffer: Buffer, from: number, to: number): number {
  let at = from;
  while (at < to) {
    const lf = buffer.indexOf(LF, at);
    if (lf < 0 || lf >= to) return -1;
    if (lf === at || (lf === at + 1 && buffer[at] === CR)) return lf + 1;
    at = lf + 1;
  }
  return -1;
}
