/**
 * Responses of identity providers (JWKS documents, introspection answers)
 * are external input (OWASP API10): a broken or hostile endpoint may answer
 * with gigabytes or never finish. This reads a response body with a size cap,
 * so neither can exhaust the server; the caller sets the time limit with an
 * AbortSignal.
 */

/** Default cap: a JWKS with a dozen RSA-4096 keys is ~10 KiB. */
export const DEFAULT_RESPONSE_LIMIT_BYTES = 256 * 1024;

/** The fetch signature the auth code uses (the global fetch fits; tests may wrap it). */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Thrown when a response exceeds its size cap. */
export class ResponseTooLargeError extends Error {
  constructor(limit: number) {
    super(`response larger than ${limit} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * The body of `response` as text, refusing more than `limitBytes` whether or
 * not Content-Length tells the truth (the stream is counted as it arrives).
 */
export async function readCappedText(
  response: Response,
  limitBytes: number = DEFAULT_RESPONSE_LIMIT_BYTES,
): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limitBytes) {
    await response.body?.cancel().catch(() => {});
    throw new ResponseTooLargeError(limitBytes);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => {});
      throw new ResponseTooLargeError(limitBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A fetch whose responses come back already read under the size cap (as a
 * fresh Response), for jose's `customFetch` hook: jose would otherwise read a
 * JWKS of any size.
 */
export function cappedFetch(
  fetchImpl: FetchFunction,
  limitBytes: number = DEFAULT_RESPONSE_LIMIT_BYTES,
): FetchFunction {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    const text = await readCappedText(response, limitBytes);
    const nullBody = [101, 204, 205, 304].includes(response.status);
    return new Response(nullBody ? null : text, { status: response.status, headers: response.headers });
  };
}
