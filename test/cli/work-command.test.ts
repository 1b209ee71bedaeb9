import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { waitFor } from '../worker/worker-harness.js';
import { listen, openHarness } from '../http/harness.js';
import { openCliDatabase } from './cli-harness.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** Whether a process has ended (Linux): no /proc entry, or a zombie that only waits for its parent to reap it. */
function ended(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

describe('taskqueue work --exec (postgres)', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it('runs the command per task with the payload on stdin, exit 0 deletes, a failure keeps stderr as last error; SIGTERM drains', async () => {
    const t = await openCliDatabase(
      serviceConfig([
        pullQueue('jobs', {
          retry: { ageLimitSeconds: null, minBackoffSeconds: 30, maxBackoffSeconds: 60, maxDoublings: 1 },
        }),
      ]),
    );
    const dir = mkdtempSync(join(tmpdir(), 'work-'));
    close = async () => {
      rmSync(dir, { recursive: true, force: true });
      await t.close();
    };
    const queue = t.service.getQueue('jobs');
    await queue.add([
      { name: 'ok', payload: 'fine' },
      { name: 'bad', payload: 'fail' },
      { name: 'slow', payload: 'slow' },
    ]);
    const script = [
      'p=$(cat)',
      'case "$p" in',
      '  fail) echo "something broke" >&2; exit 3;;',
      `  slow) touch ${dir}/slow-started; sleep 1;;`,
      'esac',
      'echo "did $p as $TASKQUEUE_TASK_NAME (retry $TASKQUEUE_TASK_RETRY_COUNT)"',
    ].join('\n');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', MAIN, 'work', 'jobs', '--exec', script, '--concurrency', '3', '--lease-seconds', '10'],
      {
        env: { ...process.env, ...t.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    await waitFor(() => existsSync(join(dir, 'slow-started')), 'the slow command', 30_000);
    await waitFor(async () => (await queue.getTask('bad')).lastError != null, 'the failure', 30_000);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    expect(out).toContain('did fine as ok (retry 0)');
    // The slow command was let finish within the grace: its task is deleted.
    expect(out).toContain('did slow as slow (retry 0)');
    expect(err).toContain('something broke');
    expect(err).toContain('draining');
    const left = await queue.listTasks();
    expect(left.map((task) => [task.name, task.lastError])).toEqual([
      ['bad', 'command exited with status 3: something broke'],
    ]);
  }, 60_000);

  it('works over REST with --url (the worker runner of taskqueue/client)', async () => {
    const h = await openHarness('postgres', { queues: [pullQueue('jobs')] });
    const server = await listen(h.app);
    close = async () => {
      await server.close();
      await h.close();
    };
    const queue = h.t.service.getQueue('jobs');
    await queue.add([
      { name: 'a', payload: 'one' },
      { name: 'b', payload: 'two' },
    ]);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', MAIN, 'work', 'jobs', '--url', server.url, '--exec', 'echo "got $(cat)"'],
      {
        env: { ...process.env, TASKQUEUE_URL: '', TASKQUEUE_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(async () => (await queue.listTasks()).length === 0, 'both tasks', 30_000);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out.split('\n').filter(Boolean).sort()).toEqual(['got one', 'got two']);
  }, 60_000);

  it('kill -9 of the runner kills its commands and what they started (SIGKILL for one that ignores SIGTERM), long before their lease ends', async () => {
    const t = await openCliDatabase(serviceConfig([pullQueue('jobs')]));
    const dir = mkdtempSync(join(tmpdir(), 'work-'));
    const pids: number[] = [];
    close = async () => {
      // Whatever the outcome, no sleep of this test outlives it.
      for (const pid of pids) if (!ended(pid)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      await t.close();
    };
    await t.service.getQueue('jobs').add([
      { name: 'plain', payload: '' },
      { name: 'stubborn', payload: 'ignore-term' },
    ]);
    // The shell starts a child of its own and waits: both must go. The stubborn one ignores SIGTERM (its child too).
    const script = [
      'if [ "$(cat)" = ignore-term ]; then trap "" TERM; fi',
      `sleep 120 & echo $! > ${dir}/$TASKQUEUE_TASK_NAME.child`,
      `echo $$ > ${dir}/$TASKQUEUE_TASK_NAME.shell`,
      'wait',
    ].join('\n');
    const runner = spawn(
      process.execPath,
      ['--import', 'tsx', MAIN, 'work', 'jobs', '--exec', script, '--concurrency', '2', '--lease-seconds', '30'],
      {
        env: { ...process.env, ...t.env },
        stdio: ['ignore', 'ignore', 'ignore'],
      },
    );
    const exited = new Promise<void>((resolve) => runner.on('exit', () => resolve()));
    const files = ['plain.shell', 'plain.child', 'stubborn.shell', 'stubborn.child'].map((file) => join(dir, file));
    await waitFor(
      () => files.every((file) => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n')),
      'both commands',
      30_000,
    );
    pids.push(...files.map((file) => Number(readFileSync(file, 'utf8'))));
    expect(pids.every((pid) => !ended(pid))).toBe(true);

    runner.kill('SIGKILL');
    await exited;
    const killed = Date.now();
    // The watchdog sends SIGTERM at once and SIGKILL 3 s later; the tasks' leases run 30 s.
    await waitFor(() => pids.every(ended), 'every process of the commands to end', 15_000);
    expect(Date.now() - killed).toBeLessThan(15_000);
  }, 60_000);

  it('past the grace, SIGTERM reaches what the command started too (SIGKILL 3 s later if ignored), and the tasks are released', async () => {
    const t = await openCliDatabase(serviceConfig([pullQueue('jobs')]));
    const dir = mkdtempSync(join(tmpdir(), 'work-'));
    const pids: number[] = [];
    close = async () => {
      for (const pid of pids) if (!ended(pid)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      await t.close();
    };
    const queue = t.service.getQueue('jobs');
    await queue.add([
      { name: 'long', payload: '' },
      { name: 'stubborn', payload: 'ignore-term' },
    ]);
    const script = [
      'if [ "$(cat)" = ignore-term ]; then trap "" TERM; fi',
      `sleep 120 & echo $! > ${dir}/$TASKQUEUE_TASK_NAME`,
      'wait',
    ].join('\n');
    const runner = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        MAIN,
        'work',
        'jobs',
        '--exec',
        script,
        '--concurrency',
        '2',
        '--lease-seconds',
        '60',
        '--grace-seconds',
        '0',
      ],
      {
        env: { ...process.env, ...t.env },
        stdio: ['ignore', 'ignore', 'ignore'],
      },
    );
    const exited = new Promise<number | null>((resolve) => runner.on('exit', (code) => resolve(code)));
    const files = ['long', 'stubborn'].map((name) => join(dir, name));
    await waitFor(
      () => files.every((file) => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n')),
      'both commands',
      30_000,
    );
    pids.push(...files.map((file) => Number(readFileSync(file, 'utf8'))));
    runner.kill('SIGTERM');
    // The runner waits for its commands' output to close: a child left alive would hold it for two minutes.
    expect(await exited).toBe(0);
    expect(pids.filter((pid) => !ended(pid))).toEqual([]);
    expect((await queue.leaseTasks({ lease: 60, maxTasks: 5 })).map((task) => task.name).sort()).toEqual([
      'long',
      'stubborn',
    ]);
  }, 60_000);
});
