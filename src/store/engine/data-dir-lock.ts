import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueueError } from '../../core/errors.js';

/**
 * An exclusive, process-level lock on the embedded engine's data directory.
 * PGlite itself does not stop a second process from opening the same
 * directory, and two writers were measured losing a committed row; so the
 * service refuses to open a directory another live process holds.
 *
 * The lock is a listening Unix socket in the directory, not a file naming a
 * pid: the kernel closes the socket the moment its process dies (a zombie
 * not yet reaped included), so a lock left by a crash is seen as dead at
 * once, whatever became of that pid or hostname since. A socket file whose
 * connect is refused has no live holder.
 *
 * Every opener publishes a socket under a name of its own (never reused, so
 * a dead one can be deleted without harming anybody), then looks at the
 * others. Each socket answers a connection with its state: `H` (holds the
 * directory) or `C` (still deciding), and its pid. An opener takes the
 * directory when no other live socket is left; it gives up when it meets a
 * holder, or a deciding opener with a smaller name; it waits while only
 * deciding openers with larger names remain (they will give up, or turn out
 * to hold it). Two openers can therefore never both hold the directory: the
 * one that published second sees the first one's socket in every look.
 */
export interface DataDirLock {
  readonly path: string;
  release(): Promise<void>;
}

/** Who holds a directory: the pid its socket reports. */
export interface LockHolder {
  readonly pid: number;
}

/** The directory, inside the data directory, where openers publish their sockets. */
export const LOCK_DIR = 'taskqueue.lock.d';

const SOCKET_NAME = /^[0-9a-f]{16}\.sock$/;
/** sun_path holds 108 bytes with its terminator; longer paths are reached through a short symlink. */
const MAX_SOCKET_PATH = 100;
/** How long an opener waits for deciding openers before giving up. */
const DECIDE_TIMEOUT_MS = 10_000;
/** How long a probe waits for a live socket's answer. */
const PROBE_TIMEOUT_MS = 2_000;

/** Lock directories this process holds: a second opener in the same process is refused too. */
const heldHere = new Set<string>();

type Probe =
  { readonly kind: 'dead' } | { readonly kind: 'live'; readonly state: 'H' | 'C' | '?'; readonly pid: number | null };

/**
 * Takes the lock or throws a QueueError (INVALID_CONFIG, details.pid = the
 * holder's pid) naming the process that holds it.
 */
export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  const lockDir = join(dataDir, LOCK_DIR);
  mkdirSync(lockDir, { recursive: true, mode: 0o700 });
  const key = realpathSync(lockDir);
  if (heldHere.has(key)) {
    throw new QueueError(
      'INVALID_CONFIG',
      `the data directory ${dataDir} is already open in this process; open it once and share the service`,
      { dataDir, pid: process.pid },
    );
  }
  heldHere.add(key);
  const name = `${randomBytes(8).toString('hex')}.sock`;
  const path = join(lockDir, name);
  let state: 'H' | 'C' = 'C';
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.end(`${state} ${process.pid}\n`);
  });
  // The lock must never keep the process alive on its own.
  server.unref();
  const alias = shortAlias(lockDir);
  try {
    // Listen under a temporary name, then publish: a published socket
    // always accepts, so nobody can mistake it for a dead one.
    const temp = `${randomBytes(8).toString('hex')}.tmp`;
    await listen(server, join(alias.dir, temp));
    renameSync(join(lockDir, temp), path);
    const deadline = Date.now() + DECIDE_TIMEOUT_MS;
    for (;;) {
      const verdict = await lookAtOthers(alias.dir, name);
      if (verdict.kind === 'free') break;
      if (verdict.kind === 'refused' || Date.now() >= deadline) {
        const pid = verdict.kind === 'refused' ? verdict.pid : null;
        throw new QueueError(
          'INVALID_CONFIG',
          `the data directory ${dataDir} is in use by process ${pid ?? '?'}` +
            (verdict.kind === 'refused' && verdict.starting ? ' (starting up)' : '') +
            '; the embedded engine admits one process at a time (stop the other server, ' +
            'choose another TASKQUEUE_DATA_DIR, or set DATABASE_URL to share a PostgreSQL server)',
          { dataDir, pid },
        );
      }
      await sleep(10);
    }
    state = 'H';
  } catch (error) {
    heldHere.delete(key);
    await closeServer(server);
    rmSync(path, { force: true });
    throw error;
  } finally {
    alias.remove();
  }
  let released = false;
  return {
    path,
    release: async () => {
      if (released) return;
      released = true;
      rmSync(path, { force: true });
      await closeServer(server);
      heldHere.delete(key);
    },
  };
}

/**
 * Who holds the data directory, or null when nobody does. For tools that
 * need to know whether a server runs on it (`taskqueue token`).
 */
export async function probeDataDirLock(dataDir: string): Promise<LockHolder | null> {
  const lockDir = join(dataDir, LOCK_DIR);
  let names: string[];
  try {
    names = readdirSync(lockDir).filter((entry) => SOCKET_NAME.test(entry));
  } catch {
    return null;
  }
  const alias = shortAlias(lockDir);
  try {
    for (const entry of names) {
      const probe = await probeSocket(join(alias.dir, entry));
      if (probe.kind === 'live' && probe.state !== 'C') return { pid: probe.pid ?? 0 };
    }
    return null;
  } finally {
    alias.remove();
  }
}

type Verdict =
  | { readonly kind: 'free' }
  | { readonly kind: 'wait' }
  | { readonly kind: 'refused'; readonly pid: number | null; readonly starting: boolean };

/** One look at the other sockets: dead ones are deleted, live ones decide. */
async function lookAtOthers(dir: string, mine: string): Promise<Verdict> {
  let wait = false;
  for (const entry of readdirSync(dir)) {
    if (entry === mine || !SOCKET_NAME.test(entry)) continue;
    const probe = await probeSocket(join(dir, entry));
    if (probe.kind === 'dead') {
      // Its process is gone; the name was its alone, so deleting it harms nobody.
      rmSync(join(dir, entry), { force: true });
      continue;
    }
    // Connected, but no answer: a holder dying this instant, or a stopped one. Look again.
    if (probe.state === '?') wait = true;
    else if (probe.state === 'H') return { kind: 'refused', pid: probe.pid, starting: false };
    else if (entry < mine) return { kind: 'refused', pid: probe.pid, starting: true };
    else wait = true;
  }
  return wait ? { kind: 'wait' } : { kind: 'free' };
}

/** Connects to a published socket: refused (or gone) means its holder is dead. */
function probeSocket(path: string): Promise<Probe> {
  return new Promise((resolve) => {
    let text = '';
    let connected = false;
    const socket = connect(path);
    const finish = (probe: Probe) => {
      socket.destroy();
      resolve(probe);
    };
    const live = (): Probe => {
      const match = /^([HC]) (\d+)\n/.exec(text);
      return match
        ? { kind: 'live', state: match[1] as 'H' | 'C', pid: Number(match[2]) }
        : { kind: 'live', state: '?', pid: null };
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => finish(live()));
    socket.on('connect', () => (connected = true));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('end', () => finish(live()));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected && (error.code === 'ECONNREFUSED' || error.code === 'ENOENT')) finish({ kind: 'dead' });
      // Anything else (a full backlog, a reset): a listener exists, so its process lives.
      else finish(live());
    });
  });
}

/** A path to `dir` short enough for socket addresses (a temporary symlink when needed). */
function shortAlias(dir: string): { readonly dir: string; remove(): void } {
  if (join(dir, `${'0'.repeat(16)}.sock`).length <= MAX_SOCKET_PATH) return { dir, remove: () => {} };
  const link = join(tmpdir(), `tq-lock-${randomBytes(6).toString('hex')}`);
  symlinkSync(dir, link);
  return { dir: link, remove: () => rmSync(link, { force: true }) };
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
