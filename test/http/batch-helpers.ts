import { expect } from 'vitest';
import type { Hono } from 'hono';
import type { Loose, Reply } from './harness.js';

/** One call of a batch, written as it goes on the wire. */
export interface BatchCall {
  /** `DELETE /taskqueue/v1beta2/...`: method and target; " HTTP/1.1" is added unless `noVersion`. */
  readonly line: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly contentId?: string;
  readonly noVersion?: boolean;
}

export const BOUNDARY = 'batch_test_boundary';

/** A batch request body in Google's format (CRLF line ends unless `lf`). */
export function batchBody(calls: readonly BatchCall[], options: { boundary?: string; lf?: boolean } = {}): string {
  const boundary = options.boundary ?? BOUNDARY;
  const nl = options.lf ? '\n' : '\r\n';
  let text = '';
  for (const call of calls) {
    text += `--${boundary}${nl}Content-Type: application/http${nl}`;
    if (call.contentId !== undefined) text += `Content-ID: ${call.contentId}${nl}`;
    text += `${nl}${call.line}${call.noVersion ? '' : ' HTTP/1.1'}${nl}`;
    const headers = { ...(call.headers ?? {}) };
    if (call.body !== undefined) {
      headers['Content-Type'] ??= 'application/json';
      headers['Content-Length'] ??= String(Buffer.byteLength(call.body));
    }
    for (const [name, value] of Object.entries(headers)) text += `${name}: ${value}${nl}`;
    text += nl;
    if (call.body !== undefined) text += call.body;
    text += nl;
  }
  return `${text}--${boundary}--${nl}`;
}

/** One answer of a batch response, read independently of the server's own parser. */
export interface PartReply {
  readonly contentId: string | undefined;
  readonly status: number;
  readonly reason: string;
  /** Lower-case names. */
  readonly headers: Record<string, string>;
  readonly text: string;
  readonly json: Loose;
}

/** Splits a multipart/mixed batch response into its parts. */
export function parseBatchReply(r: Reply): PartReply[] {
  expect(r.status).toBe(200);
  const type = r.headers.get('content-type') ?? '';
  const match = /^multipart\/mixed; boundary=(.+)$/.exec(type);
  expect(match, `content-type ${type}`).not.toBeNull();
  const boundary = match![1]!;
  const sections = r.text.split(`--${boundary}`);
  expect(sections[0]).toBe('');
  expect(sections.at(-1)).toBe('--\r\n');
  return sections.slice(1, -1).map((section) => {
    expect(section.startsWith('\r\n')).toBe(true);
    expect(section.endsWith('\r\n')).toBe(true);
    const [partHead = '', ...rest] = section.slice(2, -2).split('\r\n\r\n');
    const message = rest.join('\r\n\r\n');
    const partHeaders = headerMap(partHead.split('\r\n'));
    expect(partHeaders['content-type']).toBe('application/http');
    const [head = '', ...bodyParts] = message.split('\r\n\r\n');
    const text = bodyParts.join('\r\n\r\n');
    const [statusLine = '', ...lines] = head.split('\r\n');
    const status = /^HTTP\/1\.1 ([0-9]{3}) (.*)$/.exec(statusLine);
    expect(status, statusLine).not.toBeNull();
    const headers = headerMap(lines);
    expect(Number(headers['content-length'])).toBe(Buffer.byteLength(text));
    return {
      contentId: partHeaders['content-id'],
      status: Number(status![1]),
      reason: status![2]!,
      headers,
      text,
      json: text ? JSON.parse(text) : undefined,
    };
  });
}

function headerMap(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** A response, read once; the body is parsed as JSON only when it is JSON (batch answers are multipart). */
export async function batchReply(response: Response): Promise<Reply> {
  const text = await response.text();
  const json =
    (response.headers.get('content-type') ?? '').startsWith('application/json') && text ? JSON.parse(text) : undefined;
  return { status: response.status, headers: response.headers, text, json };
}

/** POSTs a batch to `app` (default path `/batch/taskqueue/v1beta2`). */
export async function sendBatch(
  app: Hono,
  body: string | Uint8Array,
  options: { path?: string; headers?: Record<string, string>; boundary?: string } = {},
): Promise<Reply> {
  const response = await app.request(options.path ?? '/batch/taskqueue/v1beta2', {
    method: 'POST',
    headers: {
      'content-type': `multipart/mixed; boundary=${options.boundary ?? BOUNDARY}`,
      ...(options.headers ?? {}),
    },
    body: body as RequestInit['body'],
  });
  return batchReply(response);
}
