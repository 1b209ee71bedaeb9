/**
 * A child process for the data-directory lock tests: takes the lock on the
 * directory named by argv[2], prints `held <pid> <hostname>` or
 * `refused <message>`, and when it holds the lock stays alive (the lock
 * held) until killed. With argv[3] (a path), it first prints `ready` and
 * waits for that file to appear, so that several holders start together.
 * Run it with `node --import tsx`.
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { acquireDataDirLock } from '../../src/store/engine/data-dir-lock.js';

const [dir, go] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: lock-holder.ts DIR [GO-FILE]');
if (go !== undefined) {
  process.stdout.write('ready\n');
  while (!existsSync(go)) await new Promise((resolve) => setTimeout(resolve, 1));
}
try {
  await acquireDataDirLock(dir);
  process.stdout.write(`held ${process.pid} ${hostname()}\n`);
  setInterval(() => {}, 60_000);
} catch (error) {
  process.stdout.write(`refused ${error instanceof Error ? error.message : String(error)}\n`);
}
