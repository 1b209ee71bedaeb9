import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const LOGGER = pathToFileURL(fileURLToPath(new URL('../../src/ops/create-logger.ts', import.meta.url))).href;

/** Runs `body` in a fresh Node process with `createLogger` in scope; its stdout. */
function runWithLogger(body: string): string {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};\n${body}`;
  const child = spawnSync(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
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
    const lines = exited.trim().split('\n').map((line) => JSON.parse(line) as { msg: string; i?: number });
    expect(lines).toHaveLength(2001);
    expect(lines.at(-1)!.msg).toBe('stopped');
    expect(lines.slice(0, 2000).map((line) => line.i)).toEqual(Array.from({ length: 2000 }, (_, i) => i));

    const crashed = runWithLogger(`
      const log = createLogger({ level: 'info', pretty: false });
      process.on('uncaughtException', (error) => { log.error({ err: error }, 'unexpected error: the process ends'); process.exit(1); });
      for (let i = 0; i < 500; i++) log.info({ i }, 'request');
      setTimeout(() => { throw new Error('boom'); });
    `);
    const last = crashed.trim().split('\n').map((line) => JSON.parse(line) as { msg: string });
    expect(last).toHaveLength(501);
    expect(last.at(-1)!.msg).toBe('unexpected error: the process ends');
  });
});
