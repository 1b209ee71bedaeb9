import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A server on the embedded engine, killed with SIGKILL, comes back on the
 * same data directory 0.2 s later, while the dead process is still an
 * unreaped zombie, and its tasks are all there.
 */

const MAIN = join(import.meta.dirname, '../../src/main.ts');

interface Server {
  readonly child: ChildProcess;
  /** The server's pid (not the shell's) and its URL. */
  readonly started: Promise<{ pid: number; url: string }>;
}

/** Starts `taskqueue serve` on `dataDir` under a shell that execs into sleep: it never reaps the server. */
function startServer(dataDir: string): Server {
  const script = `"${process.execPath}" --import tsx "${MAIN}" & echo "pid $!"; exec sleep 600`;
  const child = spawn('sh', ['-c', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      TASKQUEUE_DATA_DIR: dataDir,
      DATABASE_URL: '',
      TASKQUEUE_CONFIG: '',
      TASKQUEUE_AUTH: 'off',
    },
  });
  let out = '';
  let err = '';
  const started = new Promise<{ pid: number; url: string }>((resolve, reject) => {
    const check = () => {
      const pid = /^pid (\d+)$/m.exec(out)?.[1];
      // The start-up log line (JSON on stdout): its url field.
      const url = /"url":"(http:\/\/[^"]+)"/.exec(out)?.[1];
      if (pid !== undefined && url !== undefined) resolve({ pid: Number(pid), url });
      if (/in use by process/.test(out + err)) reject(new Error(out + err));
    };
    child.stdout!.on('data', (chunk: Buffer) => ((out += chunk.toString('utf8')), check()));
    child.stderr!.on('data', (chunk: Buffer) => ((err += chunk.toString('utf8')), check()));
    child.once('exit', () => reject(new Error(`server shell exited: ${err}`)));
  });
  started.catch(() => {});
  return { child, started };
}

async function stop(server: Server): Promise<void> {
  const started = await server.started.catch(() => null);
  if (started) {
    try {
      process.kill(started.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  server.child.kill('SIGKILL');
  if (server.child.exitCode === null && server.child.signalCode === null) {
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
}

async function addTask(url: string, id: string): Promise<void> {
  const response = await fetch(`${url}/taskqueue/v1beta2/projects/local/taskqueues/pull-queue/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ queueName: 'pull-queue', id, payloadBase64: Buffer.from(id).toString('base64') }),
  });
  expect(response.status).toBe(200);
}

describe('the embedded engine after a crash', () => {
  it(
    'restarts 0.2 s after kill -9 of the server, before the dead one is reaped, with its tasks',
    { timeout: 240_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'tq-restart-'));
      const first = startServer(dataDir);
      let second: Server | null = null;
      try {
        const { pid, url } = await first.started;
        await addTask(url, 'before-the-crash');

        process.kill(pid, 'SIGKILL');
        await new Promise((resolve) => setTimeout(resolve, 200));
        second = startServer(dataDir);
        // The dead server is never reaped: it ends as a zombie, whose pid still answers kill(pid, 0).
        const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
        for (let i = 0; i < 100 && state() !== 'Z'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(state()).toBe('Z');
        expect(() => process.kill(pid, 0)).not.toThrow();

        const again = await second.started;
        const response = await fetch(`${again.url}/taskqueue/v1beta2/projects/local/taskqueues/pull-queue/tasks`);
        expect(response.status).toBe(200);
        const body = (await response.json()) as { items?: Array<{ id: string }> };
        expect(body.items?.map((task) => task.id)).toEqual(['before-the-crash']);
      } finally {
        await stop(first);
        if (second) await stop(second);
      }
    },
  );
});
