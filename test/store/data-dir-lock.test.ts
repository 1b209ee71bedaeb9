import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDataDirLock } from '../../src/store/data-dir-lock.js';

describe('the embedded engine data-directory lock', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'tq-lock-'));

  it('refuses a second opener in this process, and admits one after release', () => {
    const d = dir();
    const lock = acquireDataDirLock(d);
    expect(() => acquireDataDirLock(d)).toThrow(/already open in this process/);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    acquireDataDirLock(d).release();
  });

  it('refuses a directory another live process holds, naming it', async () => {
    const d = dir();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      writeFileSync(join(d, 'taskqueue.lock'), `${child.pid}\n`);
      expect(() => acquireDataDirLock(d)).toThrow(new RegExp(`in use by process ${child.pid}`));
    } finally {
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
    }
    // Its holder is gone now: the stale lock is taken over.
    const lock = acquireDataDirLock(d);
    lock.release();
  });
});

describe('lock files left behind', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'tq-lock-'));

  it('never takes over a lock held on another host, and clears an unreadable one', () => {
    const d = dir();
    writeFileSync(join(d, 'taskqueue.lock'), '4242 some-other-host\n');
    expect(() => acquireDataDirLock(d)).toThrow(/process 4242 on host some-other-host/);
    writeFileSync(join(d, 'taskqueue.lock'), '');
    const lock = acquireDataDirLock(d);
    lock.release();
  });
});
