import { spawn } from 'node:child_process';
import type { TaskHandler } from '../core/worker/task-worker.js';
import type { CliIo } from './cli-io.js';
import { CommandWatchdog, KILL_AFTER_SECONDS } from './command-watchdog.js';
import type { WorkTask } from './operator-client.js';

/** Bytes of a command's stderr kept to explain its failure (the task's last error). */
const STDERR_TAIL_BYTES = 2048;

/**
 * A handler that runs `command` with /bin/sh for each task: the payload on
 * its stdin, the task's name, retry count (earlier attempts: 0 on the
 * first), tag and queue in
 * TASKQUEUE_TASK_NAME, TASKQUEUE_TASK_RETRY_COUNT, TASKQUEUE_TASK_TAG and
 * TASKQUEUE_QUEUE. Exit 0 is success; anything else is a failure whose
 * message (the exit status and the last line of stderr) becomes the task's
 * last error. Its output goes to ours. The command runs in a process group
 * of its own: when the task's signal aborts (lease lost, or the worker
 * stopping past its grace), the whole group gets SIGTERM (the shell and
 * whatever it started), and SIGKILL if it is still there KILL_AFTER_SECONDS
 * later: its task is another runner's to run by then. When the runner
 * dies, even by `kill -9`, the watchdog kills the group (command-watchdog.ts).
 */
export function execHandler(
  command: string,
  queue: string,
  io: CliIo,
  watchdog = new CommandWatchdog(),
): TaskHandler<WorkTask> {
  return (task, { signal }) =>
    new Promise<void>((resolve, reject) => {
      const env: Record<string, string> = {};
      for (const [key, value] of Object.entries(io.env)) if (typeof value === 'string') env[key] = value;
      Object.assign(env, {
        TASKQUEUE_QUEUE: queue,
        TASKQUEUE_TASK_NAME: task.name,
        // Earlier attempts, as App Engine's X-AppEngine-TaskRetryCount (and
        // our push header): 0 on the first. retryCount counts leases, this one included.
        TASKQUEUE_TASK_RETRY_COUNT: String(Math.max(0, task.retryCount - 1)),
        TASKQUEUE_TASK_TAG: task.tag ?? '',
      });
      // Detached: a process group (and session) of its own, which the watchdog and the abort kill as one.
      const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'pipe', 'pipe'], env, detached: true });
      const pgid = child.pid;
      if (pgid !== undefined) watchdog.watch(pgid);
      let tail = Buffer.alloc(0);
      child.stdout.on('data', (chunk: Buffer) => io.out.write(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        io.err.write(chunk);
        tail = Buffer.concat([tail, chunk]).subarray(-STDERR_TAIL_BYTES);
      });
      // A command that does not read its stdin closes it early: that is not a failure.
      child.stdin.on('error', () => {});
      child.stdin.end(task.payload);
      let killer: ReturnType<typeof setTimeout> | undefined;
      const stop = () => {
        if (pgid === undefined || !signalGroup(pgid, 'SIGTERM')) return;
        killer = setTimeout(() => signalGroup(pgid, 'SIGKILL'), KILL_AFTER_SECONDS * 1000);
      };
      signal.addEventListener('abort', stop, { once: true });
      // Lost before it started (an abort fires its listeners once, and that was before this one).
      if (signal.aborted) stop();
      child.on('error', (error) => {
        signal.removeEventListener('abort', stop);
        reject(error);
      });
      child.on('close', (code, killedBy) => {
        signal.removeEventListener('abort', stop);
        clearTimeout(killer);
        if (pgid !== undefined) watchdog.unwatch(pgid);
        if (code === 0) return resolve();
        const lastLine = tail.toString('utf8').trim().split('\n').pop() ?? '';
        const status = code === null ? `was killed by ${killedBy ?? 'a signal'}` : `exited with status ${code}`;
        reject(new Error(`command ${status}${lastLine ? `: ${lastLine}` : ''}`));
      });
    });
}

/** Sends `signal` to a process group; false when the group is gone. */
function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
