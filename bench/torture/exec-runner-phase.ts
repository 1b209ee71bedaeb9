import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskQueueClient } from '../../src/client/index.js';
import { sleep } from './sleep.js';
import { REPO_DIR, type TestBed } from './test-bed.js';
import { RUNNER_QUEUE } from './workload.js';

/** The commands' lease: a command still alive past it may run beside the task's next run. */
const LEASE_SECONDS = 4;
const COMMANDS = 4;

export interface ExecRunnerReport {
  /** Processes the commands started (a shell and its child each). */
  readonly processes: number;
  /** From the runner's kill -9 to the last of them gone; null if some outlived the wait. */
  readonly goneAfterMs: number | null;
}

/**
 * `taskqueue work --exec` killed with kill -9 while its commands run (each
 * a shell waiting on a child of its own, for a minute): every process of
 * the commands must be gone within the lease, before the tasks can be
 * leased again (the runner's watchdog; the issue measured 22 s past a 4 s
 * lease without it). Runs on the runners queue once it is empty, and
 * empties it again.
 */
export async function runExecRunner(bed: TestBed, log: (line: string) => void): Promise<ExecRunnerReport> {
  const dir = mkdtempSync(join(tmpdir(), 'torture-exec-'));
  const client = new TaskQueueClient({ baseUrl: bed.fleet.slots[0]!.url, getToken: () => bed.token });
  const queue = client.queue(RUNNER_QUEUE);
  const pids: number[] = [];
  try {
    for (let i = 0; i < COMMANDS; i++) await queue.insert({ name: `exec-${Date.now()}-${i}`, payload: 'x' });
    const script = `sleep 60 & echo $! > ${dir}/$TASKQUEUE_TASK_NAME.child; echo $$ > ${dir}/$TASKQUEUE_TASK_NAME.shell; wait`;
    const runner = spawn(
      process.execPath,
      [
        join(REPO_DIR, 'dist/cli/main.js'),
        'work',
        RUNNER_QUEUE,
        '--url',
        bed.fleet.slots[0]!.url,
        '--token',
        bed.token,
        '--exec',
        script,
        '--concurrency',
        String(COMMANDS),
        '--lease-seconds',
        String(LEASE_SECONDS),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TASKQUEUE_URL: '', TASKQUEUE_TOKEN: '' } },
    );
    let stderr = '';
    runner.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    const deadline = Date.now() + 60_000;
    while (readPids(dir).length < COMMANDS * 2 && Date.now() < deadline) await sleep(50);
    pids.push(...readPids(dir));
    log(`  exec runner: ${pids.length} processes of ${COMMANDS} commands running; kill -9 of the runner`);
    if (pids.length < COMMANDS * 2) log(`  exec runner's stderr: ${stderr.trim() || '(nothing)'}`);
    runner.kill('SIGKILL');
    const killed = Date.now();
    while (!pids.every(ended) && Date.now() - killed < 30_000) await sleep(20);
    const goneAfterMs = pids.every(ended) ? Date.now() - killed : null;
    // Empty the queue again: the tasks come back when their leases end.
    let left = COMMANDS;
    while (left > 0 && Date.now() < deadline + 30_000) {
      const tasks = await queue.lease({ numTasks: COMMANDS, leaseSecs: 60, waitSecs: LEASE_SECONDS + 2 });
      if (tasks.length > 0) await queue.batchDelete(tasks.map((task) => task.name));
      left -= tasks.length;
    }
    return { processes: pids.length, goneAfterMs };
  } finally {
    for (const pid of pids) if (!ended(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The pids the commands wrote (a file is complete once it ends with its newline). */
function readPids(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), 'utf8');
    if (text.endsWith('\n')) pids.push(Number(text));
  }
  return pids;
}

/** Gone (Linux): no /proc entry, or a zombie waiting to be reaped. */
function ended(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

export function describeExecRunner(report: ExecRunnerReport): string[] {
  const gone =
    report.goneAfterMs === null ? 'some outlived 30 s' : `all gone ${(report.goneAfterMs / 1000).toFixed(2)} s after`;
  return [
    `${execRunnerPassed(report) ? 'ok  ' : 'FAIL'} kill -9 of taskqueue work --exec: ${report.processes} command processes, ${gone} (lease ${LEASE_SECONDS} s)`,
  ];
}

export function execRunnerPassed(report: ExecRunnerReport): boolean {
  return report.processes === COMMANDS * 2 && report.goneAfterMs !== null && report.goneAfterMs < LEASE_SECONDS * 1000;
}
