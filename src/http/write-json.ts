import type { Context } from 'hono';
import type { CommonParams } from './common-params.js';
import { matchesIfNoneMatch } from './etag.js';
import { applyFields } from './fields/apply-fields.js';
import { GZIP_THRESHOLD_BYTES, gzipBody, wantsGzip } from './gzip-response.js';

const JSON_TYPE = 'application/json; charset=UTF-8';

/**
 * What every JSON answer varies on: gzip is chosen from `Accept-Encoding`
 * and the `User-Agent` (gzip-response.ts).
 */
const VARY = 'Accept-Encoding, User-Agent';

/** A method's successful answer, before the conventions of section 4.3 are applied. */
export interface JsonResult {
  readonly status?: 200 | 201;
  readonly body: object;
  /** The ETag of the full resource (see etag.ts); every resource response carries one. */
  readonly etag: string;
}

/**
 * Sends a successful JSON response with the conventions every method
 * shares: `If-None-Match` on a GET answers 304 when the ETag matches, with
 * the headers RFC 9110 section 15.4.5 says a 304 carries when the 200
 * would (`ETag`, `Vary`; `Cache-Control` is added after the route, for
 * either; `Date` by the server; this service sends no `Content-Location`
 * or `Expires`), so a cache keeps its stored answer keyed as before;
 * `fields` keeps only the selected part; `prettyPrint` indents; gzip when
 * the request qualifies (spec rule) and the body is worth compressing.
 */
export async function writeJson(c: Context, params: CommonParams, result: JsonResult): Promise<Response> {
  const headers: Record<string, string> = { etag: result.etag };
  if (c.req.method === 'GET' && matchesIfNoneMatch(c.req.header('if-none-match'), result.etag)) {
    return c.body(null, 304, { vary: VARY, ...headers });
  }
  const body = params.fields ? applyFields(result.body, params.fields) : result.body;
  return writeJsonText(c, result.status ?? 200, JSON.stringify(body, null, params.pretty ? 2 : undefined), headers);
}

/** Sends JSON text (a success or an error envelope), gzip-encoded when the request qualifies. */
export async function writeJsonText(
  c: Context,
  status: number,
  text: string,
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': JSON_TYPE, vary: VARY, ...extraHeaders };
  let body: Buffer | string = text;
  if (text.length >= GZIP_THRESHOLD_BYTES && wantsGzip(c.req.header('accept-encoding'), c.req.header('user-agent'))) {
    body = await gzipBody(Buffer.from(text));
    headers['content-encoding'] = 'gzip';
  }
  return c.body(body as never, status as never, headers);
}
