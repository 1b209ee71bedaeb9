import { readFile, stat } from 'node:fs/promises';
import { LIMITS } from '../core/limits.js';
import type { CliIo } from './cli-io.js';
import { UsageError } from './usage-error.js';

/**
 * The payload of `taskqueue add`: the argument, else the --file, else
 * stdin when it is not a terminal (so `echo hi | taskqueue add q` works and
 * a bare `taskqueue add q` does not hang waiting for typing). Bytes as they
 * are; at most the task size limit is read.
 */
export async function readPayload(io: CliIo, argument: string | undefined, file: string | undefined): Promise<Buffer> {
  if (argument !== undefined && file !== undefined)
    throw new UsageError('give the payload as an argument or with --file, not both');
  if (argument !== undefined) return Buffer.from(argument, 'utf8');
  if (file !== undefined) {
    const size = (await stat(file)).size;
    if (size > LIMITS.maxTaskBytes)
      throw new UsageError(`${file} is ${size} bytes; a task holds at most ${LIMITS.maxTaskBytes}`);
    return readFile(file);
  }
  if (io.stdin.isTTY === true) throw new UsageError('give a payload: an argument, --file FILE, or on standard input');
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of io.stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    total += bytes.byteLength;
    if (total > LIMITS.maxTaskBytes)
      throw new UsageError(`the payload on standard input exceeds ${LIMITS.maxTaskBytes} bytes, the most a task holds`);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}
