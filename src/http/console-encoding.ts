import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import type { Context, Next } from 'hono';
import { GZIP_THRESHOLD_BYTES, gzipBody } from './gzip-response.js';
import { matchesIfNoneMatch } from './etag.js';

/**
 * Brotli quality 4: on the 131-queue list (about 90 KB of HTML) it took
 * about 1 ms and kept the body near gzip level 6's size; the higher levels
 * cost several times the CPU for a few hundred bytes (docs/performance.md).
 */
const BROTLI_OPTIONS = { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } };

/**
 * What changes on every render without changing what the page says: the
 * moment it was made, and the text of its times, which the client script
 * writes itself from their `data-at` (in the zone the viewer chose). The
 * ETag hashes the page without them, so a refresh of an unchanged page is a
 * 304 with no body.
 */
function versionOf(html: string): string {
  return html
    .replace(/ data-rendered-at="\d+"/, '')
    .replace(/<time[^>]*? data-at="(-?\d+)"[^>]*>[^<]*<\/time>/g, '<time $1>')
    .replace(/<span class="age" data-since="(-?\d+)">[^<]*<\/span>/g, '<age $1>');
}

/** A weak ETag: equal pages mean equal figures, not equal bytes. */
export function pageEtag(html: string): string {
  return `W/"${createHash('sha1').update(versionOf(html)).digest('base64url').slice(0, 22)}"`;
}

/** Brotli when the browser takes it (every current one over https or localhost), else gzip, else none. */
function encodingFor(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    accepted.set(coding, q === undefined ? 1 : Number.parseFloat(q.slice(2)) || 0);
  }
  if ((accepted.get('br') ?? 0) > 0) return 'br';
  if ((accepted.get('gzip') ?? 0) > 0) return 'gzip';
  return null;
}

/**
 * The web console's pages, fragments and JSON (src/console, mounted at
 * /console), compressed and tagged here, in the HTTP shell, where the
 * REST side's gzip and ETag code lives: each
 * answer carries an ETag of what it shows, a request that sends it back
 * (the refresh does) gets 304 and no body when nothing changed, and a body
 * goes out brotli- or gzip-compressed. Assets carry their own long cache
 * and are compressed the same way.
 */
export async function encodeConsole(c: Context, next: Next): Promise<void> {
  await next();
  const res = c.res;
  const type = res.headers.get('content-type') ?? '';
  if (res.status !== 200 || res.headers.has('content-encoding') || !/^(text\/|application\/json)/.test(type)) return;
  const text = await res.text();
  const headers = new Headers(res.headers);
  headers.append('vary', 'accept-encoding');
  if (type.startsWith('text/html') || type.startsWith('application/json')) {
    const etag = pageEtag(text);
    headers.set('etag', etag);
    if (matchesIfNoneMatch(c.req.header('if-none-match'), etag)) {
      headers.delete('content-type');
      c.res = new Response(null, { status: 304, headers });
      return;
    }
  }
  const body = Buffer.from(text, 'utf8');
  const encoding = body.byteLength < GZIP_THRESHOLD_BYTES ? null : encodingFor(c.req.header('accept-encoding'));
  if (encoding === null) {
    c.res = new Response(body, { status: 200, headers });
    return;
  }
  const encoded = encoding === 'br' ? brotliCompressSync(body, BROTLI_OPTIONS) : await gzipBody(body);
  headers.set('content-encoding', encoding);
  headers.set('content-length', String(encoded.byteLength));
  c.res = new Response(encoded, { status: 200, headers });
}
