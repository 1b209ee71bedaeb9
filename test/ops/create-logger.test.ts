import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const LOGGER = pathToFileURL(fileURLToPath(new URL('../../src/ops/create-logger.ts', import.meta.url))).href;

/** Runs `body` in a fresh Node process with `createLogger` in scope; its stdout. */
function runWithLogger(body: string): string {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};\n${body}`;
  const child = spawnSync(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(child.stderr).toBe('');
  return child.stdout;
}

describe('the server logger (JSON lines, written asynchronously)', () => {
  it('loses no line when the process exits right after logging (process.exit, or an uncaught error)', () => {
    const exited = runWithLogger(`
      const log = createLogger({ level: 'info', pretty: false });
      for (let i = 0; i < 2000; i++) log.info({ i }, 'request');
      log.info({}, 'stopped');
      process.exit(0);
    `);
    // Every line is out. Not always in order: a write still in flight when
    // the process exits can land after the rest, which pino writes
    // synchronously on exit (sonic-boom's flushSync; seen once in CI).
    const lines = exited
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; i?: number });
    expect(lines).toHaveLength(2001);
    expect(lines.filter((line) => line.msg === 'stopped')).toHaveLength(1);
    expect(lines.flatMap((line) => (line.i === undefined ? [] : [line.i])).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 2000 }, (_, i) => i),
    );

    const crashed = runWithLogger(`
      const log = createLogger({ level: 'info', pretty: false });
      process.on('uncaughtException', (error) => { log.error({ err: error }, 'unexpected error: the process ends'); process.exit(1); });
      for (let i = 0; i < 500; i++) log.info({ i }, 'request');
      setTimeout(() => { throw new Error('boom'); });
    `);
    const last = crashed
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string });
    expect(last).toHaveLength(501);
    expect(last.filter((line) => line.msg === 'unexpected error: the process ends')).toHaveLength(1);
    expect(last.filter((line) => line.msg === 'request')).toHaveLength(500);
  });

  it('drops lines past 16 MiB waiting for a stdout nobody reads, and says so on stderr', async () => {
    // The child's stdout is a pipe this test never reads: the kernel's buffer
    // fills, 16 MiB wait in the process, the rest is dropped (the process
    // keeps running) and stderr reports the drop. The child is then killed:
    // its exit would wait for a stdout that never drains.
    const script = `import { createLogger } from ${JSON.stringify(LOGGER)};
      const log = createLogger({ level: 'info', pretty: false });
      const line = 'x'.repeat(1000);
      let i = 0;
      const more = () => { for (let k = 0; k < 2000; k++) log.info({ i: i++, line }, 'request'); setImmediate(more); };
      more();`;
    const child = spawn(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pause();
    try {
      const stderr = await new Promise<string>((resolve, reject) => {
        let text = '';
        const timer = setTimeout(() => reject(new Error(`no drop reported; stderr: ${text}`)), 30_000);
        child.stderr.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          if (text.includes('dropped')) {
            clearTimeout(timer);
            resolve(text);
          }
        });
      });
      expect(stderr).toMatch(/stdout is not read fast enough \(16777216 bytes waiting\); \d+ log line\(s\) dropped/);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
