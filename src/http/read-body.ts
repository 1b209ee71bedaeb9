import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { Context } from 'hono';
import { HttpError } from './http-error.js';

const gunzipAsync = promisify(gunzip);

/**
 * Largest request body, before and after gzip decoding: a 1 MB payload is
 * 1,398,104 characters of base64, plus id, tag (at most 500 bytes each,
 * up to 6x when JSON-escaped) and some whitespace. 2 MiB leaves room for
 * all of that and nothing more.
 */
export const MAX_REQUEST_BODY_BYTES = 2 * 1024 * 1024;

function tooLarge(limit: number): HttpError {
  // The connection closes after this answer, once the lingering close (lingering-close.ts) has
  // read and discarded the rest of the body, up to a bound, so a client still sending reads it.
  return new HttpError(413, 'requestTooLarge', `The request body is larger than ${limit} bytes`, {
    headers: { connection: 'close' },
  });
}

/**
 * Reads a request body with a size cap that holds however the body arrives:
 * a `Content-Length` above the cap is refused before reading; otherwise the
 * bytes are counted as they come (chunked uploads have no length) and
 * reading stops at the cap. On @hono/node-server the body is read straight
 * from the Node request, because touching `c.req.raw.body` makes the
 * adapter build a web stream, which costs several times a whole request.
 *
 * `Content-Encoding: gzip` bodies are inflated with the same cap on the
 * inflated size (a 10 KB gzip bomb can expand to gigabytes); any other
 * encoding is 415.
 */
export async function readBody(c: Context, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const encoding = (c.req.header('content-encoding') ?? 'identity').trim().toLowerCase();
  const gzipped = encoding === 'gzip' || encoding === 'x-gzip';
  if (!gzipped && encoding !== 'identity' && encoding !== '') {
    throw new HttpError(
      415,
      'unsupportedMediaType',
      `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported; use gzip or none`,
      {
        location: { type: 'header', name: 'Content-Encoding' },
      },
    );
  }
  const declared = c.req.header('content-length');
  if (declared !== undefined && /^[0-9]+$/.test(declared) && Number(declared) > limit) throw tooLarge(limit);

  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  let raw: Buffer;
  if (incoming instanceof Readable) {
    raw =
      declared === '0' || (declared === undefined && c.req.header('transfer-encoding') === undefined)
        ? Buffer.alloc(0)
        : await readStream(incoming, limit);
  } else {
    raw = await readWebStream(c.req.raw.body, limit);
  }
  if (!gzipped || raw.byteLength === 0) return raw;
  try {
    return await gunzipAsync(raw, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limit);
    throw new HttpError(400, 'parseError', 'The request body is not valid gzip data');
  }
}

function cutShort(): HttpError {
  return new HttpError(400, 'badRequest', 'The request body ended early (the client closed the connection)');
}

function readStream(stream: Readable, limit: number): Promise<Buffer> {
  if (stream.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (stream.destroyed) return Promise.reject(cutShort());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: () => void) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        stream.pause();
        finish(() => reject(tooLarge(limit)));
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks, size)));
    const onError = () => finish(() => reject(cutShort()));
    const onClose = () => {
      if (!stream.readableEnded) finish(() => reject(cutShort()));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}

async function readWebStream(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Buffer> {
  if (!body) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
