import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { QueueError } from '../core/errors.js';

/**
 * An exclusive, process-level lock on the embedded engine's data directory.
 * PGlite itself does not stop a second process from opening the same
 * directory, and two writers were measured losing a committed row; so the
 * service refuses to open a directory another live process holds.
 */
export interface DataDirLock {
  readonly path: string;
  release(): void;
}

const LOCK_FILE = 'taskqueue.lock';

/** Lock files this process holds: a second opener in the same process is refused too. */
const heldHere = new Set<string>();

/** Takes the lock or throws a QueueError naming the process that holds it. */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  if (heldHere.has(path)) {
    throw new QueueError(
      'INVALID_CONFIG',
      `the data directory ${dataDir} is already open in this process; open it once and share the service`,
      { dataDir, pid: process.pid },
    );
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      heldHere.add(path);
      const release = () => {
        if (released) return;
        released = true;
        heldHere.delete(path);
        process.off('exit', release);
        rmSync(path, { force: true });
      };
      process.on('exit', release);
      return { path, release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(path);
      if (holder !== null && holder !== process.pid && isProcessAlive(holder)) {
        throw new QueueError(
          'INVALID_CONFIG',
          `the data directory ${dataDir} is in use by process ${holder}; ` +
            'the embedded engine admits one process at a time (stop the other server, ' +
            'choose another TASKQUEUE_DATA_DIR, or set DATABASE_URL to share a PostgreSQL server)',
          { dataDir, pid: holder },
        );
      }
      // The holder is gone (crashed without cleaning up, or a pid this
      // process reuses): take the lock over.
      rmSync(path, { force: true });
    }
  }
  throw new QueueError('INVALID_CONFIG', `could not lock the data directory ${dataDir}`, { dataDir });
}

/** Reads the pid written in a lock file, or null when unreadable. */
export function readHolder(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Whether a process with this pid runs (EPERM: it runs, as another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
