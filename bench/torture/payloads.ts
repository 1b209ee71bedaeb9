import { createHash } from 'node:crypto';

/**
 * The payload of task `name`: 0 to maxBytes arbitrary bytes (every byte
 * value, NULs and invalid UTF-8 included) derived from the name alone, so
 * any task seen anywhere (a lease, a dead letter, a task whose add was
 * never acknowledged) can be checked byte for byte without remembering it.
 */
export function payloadOf(name: string, maxBytes: number): Buffer {
  const seed = createHash('sha256').update(name).digest();
  const length = seed.readUInt32BE(0) % (maxBytes + 1);
  const chunks: Buffer[] = [];
  let block = seed;
  let total = 0;
  while (total < length) {
    block = createHash('sha256').update(block).digest();
    chunks.push(block);
    total += block.length;
  }
  return Buffer.concat(chunks).subarray(0, length);
}
