import { randomUUID } from 'node:crypto';

/** One call inside a Google batch request. */
export interface BatchCall {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** A `multipart/mixed` batch body (docs/rest-batch.md) and its Content-Type. */
export function batchRequest(calls: readonly BatchCall[]): { body: string; contentType: string } {
  const boundary = `batch_${randomUUID()}`;
  const parts = calls.map((call, index) => {
    const headers = Object.entries(call.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const length = call.body === undefined ? '' : `Content-Length: ${Buffer.byteLength(call.body)}\r\n`;
    return (
      `--${boundary}\r\nContent-Type: application/http\r\nContent-ID: <item${index}>\r\n\r\n` +
      `${call.method} ${call.path} HTTP/1.1\r\n${headers}${length}\r\n${call.body ?? ''}\r\n`
    );
  });
  return { body: parts.join('') + `--${boundary}--\r\n`, contentType: `multipart/mixed; boundary=${boundary}` };
}

/** The answers of a batch response, in order: each part's status and body. */
export function batchAnswers(contentType: string | null, body: Buffer): { status: number; body: string }[] {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType ?? '')?.[2];
  if (!boundary) throw new Error(`batch answer without a boundary: ${contentType}`);
  const text = body.toString('utf8');
  const answers: { status: number; body: string }[] = [];
  for (const part of text.split(`--${boundary}`).slice(1)) {
    if (part.startsWith('--')) break;
    const status = /HTTP\/1\.1 (\d{3})/.exec(part);
    if (!status) throw new Error(`batch part without a status line: ${part.slice(0, 200)}`);
    const afterStatus = part.slice(status.index);
    const bodyStart = afterStatus.indexOf('\r\n\r\n');
    const partBody = bodyStart < 0 ? '' : afterStatus.slice(bodyStart + 4).replace(/\r\n$/, '');
    answers.push({ status: Number(status[1]), body: partBody });
  }
  return answers;
}
