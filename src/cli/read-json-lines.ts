import { StringDecoder } from 'node:string_decoder';

/** One parsed line, its 1-based number, and the bytes read so far (for progress). */
export interface JsonLine {
  readonly value: unknown;
  readonly line: number;
  readonly bytesRead: number;
}

/** Longest line accepted: a 1 MB payload in base64, with room for the other fields. */
export const MAX_LINE_CHARS = 2 * 1024 * 1024;

/**
 * Reads JSON lines from a stream as they arrive (a web or Node stream), so
 * an export of any size passes through in bounded memory. Empty lines are
 * skipped; a line that is not JSON, or longer than MAX_LINE_CHARS, is an
 * error naming its number.
 */
export async function* readJsonLines(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<JsonLine> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let line = 0;
  let bytesRead = 0;
  const parse = (text: string): JsonLine | null => {
    line++;
    if (text.trim() === '') return null;
    try {
      return { value: JSON.parse(text) as unknown, line, bytesRead };
    } catch {
      throw new Error(`line ${line} is not JSON: ${JSON.stringify(text.slice(0, 60))}`);
    }
  };
  for await (const chunk of source) {
    bytesRead += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    pending +=
      typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const parsed = parse(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      if (parsed) yield parsed;
    }
    if (pending.length > MAX_LINE_CHARS)
      throw new Error(`line ${line + 1} is longer than ${MAX_LINE_CHARS} characters`);
  }
  pending += decoder.end();
  const last = parse(pending);
  if (last) yield last;
}
