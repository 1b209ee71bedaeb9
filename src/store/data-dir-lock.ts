import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
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

/** Who holds a lock: the pid and host written in its file. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
}

/**
 * Takes the lock or throws a QueueError naming the process that holds it.
 * The lock file is created whole and atomically (written under a temporary
 * name, then linked into place), so no opener ever sees it empty. A lock
 * left by a process that is gone is cleared by one opener at a time (the
 * takeover marker); a lock from another host is never taken over, since its
 * holder cannot be checked from here.
 */
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
  const me: LockHolder = { pid: process.pid, host: hostname() };
  for (let attempt = 0; attempt < 40; attempt++) {
    if (tryCreate(path, me)) return held(path);
    const holder = readLockHolder(path);
    if (holder === undefined) continue; // released meanwhile: try again
    if (holder !== null && holder.host !== me.host) {
      throw new QueueError(
        'INVALID_CONFIG',
        `the data directory ${dataDir} is held by process ${holder.pid} on host ${holder.host}; ` +
          `if that server is gone for good, delete ${path}`,
        { dataDir, pid: holder.pid, host: holder.host },
      );
    }
    if (holder !== null && holder.pid !== process.pid && isProcessAlive(holder.pid)) {
      throw new QueueError(
        'INVALID_CONFIG',
        `the data directory ${dataDir} is in use by process ${holder.pid}; ` +
          'the embedded engine admits one process at a time (stop the other server, ' +
          'choose another TASKQUEUE_DATA_DIR, or set DATABASE_URL to share a PostgreSQL server)',
        { dataDir, pid: holder.pid },
      );
    }
    // The holder is gone (crashed, or an earlier life of this pid, as in a
    // restarted container): clear the lock, one opener at a time.
    clearStale(path, holder);
    sleepSync(25);
  }
  throw new QueueError('INVALID_CONFIG', `could not lock the data directory ${dataDir}`, { dataDir });
}

function tryCreate(path: string, me: LockHolder): boolean {
  const temp = `${path}.${me.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, `${me.pid} ${me.host}\n`);
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

function held(path: string): DataDirLock {
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
}

/** Removes a stale lock if it still is the one judged stale, under the takeover marker. */
function clearStale(path: string, stale: LockHolder | null): void {
  const marker = `${path}.takeover`;
  try {
    closeSync(openSync(marker, 'wx'));
  } catch {
    // Another opener is clearing it; a marker left by a crash expires.
    try {
      if (Date.now() - statSync(marker).mtimeMs > 10_000) rmSync(marker, { force: true });
    } catch {
      // gone meanwhile
    }
    return;
  }
  try {
    const now = readLockHolder(path);
    const same = now === null ? stale === null : stale !== null && now !== undefined && now.pid === stale.pid && now.host === stale.host;
    if (same) rmSync(path, { force: true });
  } finally {
    rmSync(marker, { force: true });
  }
}

/** The holder written in a lock file: undefined when there is no file, null when it is unreadable. */
export function readLockHolder(path: string): LockHolder | null | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return null;
  }
  const [pidText, host] = text.trim().split(/\s+/);
  const pid = Number.parseInt(pidText ?? '', 10);
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  return { pid, host: host ?? hostname() };
}

/** Reads the pid written in a lock file, or null when unreadable. */
export function readHolder(path: string): number | null {
  return readLockHolder(path)?.pid ?? null;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
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
