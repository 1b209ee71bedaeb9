import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import type { LogLine } from './ops-harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let bundle: string | null = null;

/**
 * src/main.ts bundled into one file (packages left external), built once per
 * test file: a child starts in well under a second instead of having tsx
 * compile every module on a busy machine. It sits two levels below the
 * repository, like dist/main.js, so `../../sql` and `../../package.json`
 * resolve as in the package.
 */
function serverBundle(): string {
  if (bundle) return bundle;
  const dir = `${ROOT}.test-build/server-${process.pid}`;
  rmSync(dir, { recursive: true, force: true });
  const outfile = `${dir}/main.mjs`;
  buildSync({
    entryPoints: [`${ROOT}src/main.ts`],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'error',
  });
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  bundle = outfile;
  return bundle;
}

/** A `taskqueue serve` in a child process (src/main.ts, bundled), with its JSON log parsed. */
export interface ChildServer {
  readonly proc: ChildProcess;
  readonly lines: LogLine[];
  /** Everything it wrote, stdout and stderr. */
  output(): string;
  /** Resolves with the URL of the start line; rejects if the process exits first. */
  readonly started: Promise<string>;
  /** Resolves when the process has exited, with its code and when (Date.now()). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  kill(signal?: NodeJS.Signals): void;
}

export function spawnServer(env: Record<string, string>, cwd?: string): ChildServer {
  const proc = spawn(process.execPath, [serverBundle()], {
    cwd: cwd ?? process.cwd(),
    // A clean environment: only what the test gives (plus PATH), never the runner's DATABASE_URL.
    // The console's assets are not part of the bundle: it stays off.
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      TASKQUEUE_AUTH: 'off',
      TASKQUEUE_CONSOLE: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  let out = '';
  let pending = '';
  let resolveStarted: (url: string) => void = () => {};
  let rejectStarted: (error: Error) => void = () => {};
  const started = new Promise<string>((resolve, reject) => {
    resolveStarted = resolve;
    rejectStarted = reject;
  });
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const text = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      try {
        const line = JSON.parse(text) as LogLine;
        lines.push(line);
        if (String(line.msg).startsWith('taskqueue listening on')) resolveStarted(String(line.url));
      } catch {
        // not a log line
      }
    }
  });
  proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  // A server that never starts rejects `started`; tests that expect that await `exited` instead.
  started.catch(() => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => {
    proc.once('exit', (code, signal) => {
      const at = Date.now();
      rejectStarted(new Error(`server exited (${code ?? signal}) before it started:\n${out}`));
      resolve({ code, signal, at });
    });
  });
  return {
    proc,
    lines,
    output: () => out,
    started,
    exited,
    kill: (signal: NodeJS.Signals = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    },
  };
}
