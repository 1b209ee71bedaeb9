import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDataDirLock, LOCK_DIR, probeDataDirLock } from '../../src/store/engine/data-dir-lock.js';

/**
 * The embedded engine's data-directory lock is a listening Unix socket the
 * kernel closes when its process dies. Holders run as child processes
 * (test/helpers/lock-holder.ts), started through a shell that execs into
 * `sleep`: the holder's parent then never reaps it, so after `kill -9` it
 * stays a zombie, whose pid still answers kill(pid, 0), as in the crash
 * the lock failed on before.
 */

const HOLDER = join(import.meta.dirname, '../helpers/lock-holder.ts');
const dir = () => mkdtempSync(join(tmpdir(), 'tq-lock-'));

interface Holder {
  readonly child: ChildProcess;
  /** The first line the holder printed: `held PID HOST` or `refused MESSAGE`. */
  readonly line: Promise<string>;
}

/**
 * Starts a holder on `dataDir`, wrapped in `prefix` (e.g. `unshare -u`), as
 * an unreaped grandchild. With `go`, it waits for that file before it
 * opens the directory (`ready` resolves once it waits).
 */
function startHolder(dataDir: string, prefix = '', go?: string): Holder & { readonly ready: Promise<void> } {
  const script = `${prefix} "${process.execPath}" --import tsx "${HOLDER}" "${dataDir}" ${go ? `"${go}"` : ''} & exec sleep 600`;
  const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  const lines: string[] = [];
  const waiting: Array<() => void> = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n')) {
      lines.push(text.slice(0, end));
      text = text.slice(end + 1);
    }
    waiting.splice(0).forEach((wake) => wake());
  });
  const nextLine = (test: (line: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = lines.find(test);
        if (found !== undefined) resolve(found);
        else waiting.push(check);
      };
      child.once('exit', () => reject(new Error(`holder exited before answering: ${lines.join(' / ')}`)));
      check();
    });
  const line = nextLine((l) => l !== 'ready');
  const ready = nextLine((l) => l === 'ready').then(() => {});
  // Awaited only by the tests that use them.
  line.catch(() => {});
  ready.catch(() => {});
  return { child, line, ready };
}

async function stop(holder: Holder): Promise<void> {
  // The holder itself (when it holds the lock), then its never-reaping parent.
  const line = await holder.line.catch(() => '');
  const held = /^held (\d+)/.exec(line);
  if (held) {
    try {
      process.kill(Number(held[1]), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  holder.child.kill('SIGKILL');
  if (holder.child.exitCode === null && holder.child.signalCode === null) {
    await new Promise((resolve) => holder.child.once('exit', resolve));
  }
}

function heldPid(line: string): number {
  const match = /^held (\d+)/.exec(line);
  if (!match) throw new Error(`expected the holder to hold the lock, got: ${line}`);
  return Number(match[1]);
}

/** The process state letter from /proc (Z = zombie). */
function processState(pid: number): string {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] ?? '?';
}

describe('the embedded engine data-directory lock', () => {
  it('refuses a second opener in this process, and admits one after release', async () => {
    const d = dir();
    const lock = await acquireDataDirLock(d);
    await expect(acquireDataDirLock(d)).rejects.toThrow(/already open in this process/);
    expect(await probeDataDirLock(d)).toEqual({ pid: process.pid });
    await lock.release();
    expect(readdirSync(join(d, LOCK_DIR))).toEqual([]);
    expect(await probeDataDirLock(d)).toBeNull();
    await (await acquireDataDirLock(d)).release();
  });

  it('refuses a directory another live process holds, naming it, and takes it 0.2 s after that process is killed (a zombie)', async () => {
    const d = dir();
    const holder = startHolder(d);
    try {
      const pid = heldPid(await holder.line);
      await expect(acquireDataDirLock(d)).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
        message: expect.stringContaining(`in use by process ${pid}`),
        details: { pid },
      });
      expect(await probeDataDirLock(d)).toEqual({ pid });

      process.kill(pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Not reaped: the pid still answers kill(pid, 0), so a pid check would call it alive.
      expect(processState(pid)).toBe('Z');
      expect(() => process.kill(pid, 0)).not.toThrow();

      const started = performance.now();
      const lock = await acquireDataDirLock(d);
      const tookMs = performance.now() - started;
      console.info(`lock taken over from a zombie holder in ${tookMs.toFixed(1)} ms`);
      // The dead holder's socket is cleared away; only ours is left.
      expect(readdirSync(join(d, LOCK_DIR))).toEqual([lock.path.split('/').pop()]);
      await lock.release();
    } finally {
      await stop(holder);
    }
  });

  it('takes over from a dead holder that ran under another hostname (a replaced container)', async () => {
    const d = dir();
    const holder = startHolder(d, 'unshare -u sh -c \'hostname other-host && exec "$0" "$@"\'');
    try {
      const line = await holder.line;
      expect(line).toMatch(/ other-host$/);
      const pid = heldPid(line);
      // Alive under another hostname: still refused (it is alive).
      await expect(acquireDataDirLock(d)).rejects.toThrow(`in use by process ${pid}`);
      process.kill(pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 200));
      await (await acquireDataDirLock(d)).release();
    } finally {
      await stop(holder);
    }
  });

  it("takes over when the dead holder's pid now belongs to an unrelated live process", async () => {
    const d = dir();
    // In a pid namespace of its own: hold, die, then give the same pid to a
    // `sleep` (ns_last_pid) and open the directory again beside it.
    const node = `"${process.execPath}" --import tsx "${HOLDER}" "${d}"`;
    const script = [
      `${node} > "${d}/first" &`,
      'first=$!',
      `until grep -q held "${d}/first" 2>/dev/null; do sleep 0.05; done`,
      'kill -9 $first; wait $first',
      'echo $((first - 1)) > /proc/sys/kernel/ns_last_pid',
      'sleep 600 & reused=$!',
      'echo "first $first reused $reused"',
      `${node} > "${d}/second" & second=$!`,
      `until grep -q . "${d}/second" 2>/dev/null; do sleep 0.05; done`,
      `cat "${d}/second"`,
      'kill $reused $second',
    ].join('\n');
    const child = spawn('unshare', ['-pf', '--mount-proc', 'sh', '-c', script], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    await new Promise((resolve) => child.once('exit', resolve));
    const pids = /first (\d+) reused (\d+)/.exec(out);
    expect(pids?.[1]).toBeDefined();
    expect(pids?.[2]).toBe(pids?.[1]);
    expect(out).toMatch(/^held \d+/m);
    expect(out).not.toMatch(/refused/);
  });

  it('lets exactly one of several processes racing for a directory hold it, also over a dead holder', async () => {
    for (const withStale of [false, true]) {
      const d = mkdtempSync(join(tmpdir(), 'tq-lock-race-'));
      if (withStale) {
        const dead = startHolder(d);
        process.kill(heldPid(await dead.line), 'SIGKILL');
        await stop(dead);
      }
      // All four wait for the go file, then open the directory at once.
      const go = join(d, 'go');
      const racers = Array.from({ length: 4 }, () => startHolder(d, '', go));
      try {
        await Promise.all(racers.map((racer) => racer.ready));
        writeFileSync(go, '');
        const lines = await Promise.all(racers.map((racer) => racer.line));
        expect(
          lines.filter((line) => line.startsWith('held')),
          lines.join('\n'),
        ).toHaveLength(1);
        expect(
          lines.filter((line) => line.startsWith('refused')).every((line) => /in use by process \d+/.test(line)),
        ).toBe(true);
      } finally {
        await Promise.all(racers.map(stop));
      }
    }
  });

  it('works in a directory whose path is too long for a socket address', async () => {
    const d = join(dir(), 'x'.repeat(60), 'y'.repeat(60));
    mkdirSync(d, { recursive: true });
    const holder = startHolder(d);
    try {
      const pid = heldPid(await holder.line);
      expect(await probeDataDirLock(d)).toEqual({ pid });
      await expect(acquireDataDirLock(d)).rejects.toThrow(`in use by process ${pid}`);
    } finally {
      await stop(holder);
    }
    await (await acquireDataDirLock(d)).release();
  });

  it('ignores the lock file of earlier versions', async () => {
    const d = dir();
    writeFileSync(join(d, 'taskqueue.lock'), `${process.pid} some-other-host\n`);
    await (await acquireDataDirLock(d)).release();
  });
});
