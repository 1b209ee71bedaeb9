import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.js';
import { execHandler } from '../../src/cli/exec-handler.js';

/** Runs the exec handler once for a task leased `leases` times; returns what the command printed. */
async function run(leases: number): Promise<string> {
  let out = '';
  const io: CliIo = {
    env: { PATH: process.env.PATH },
    out: { write: (chunk) => ((out += chunk.toString()), true) },
    err: { write: () => true },
    stdin: new PassThrough(),
  };
  const handler = execHandler('echo "$TASKQUEUE_TASK_RETRY_COUNT"', 'jobs', io);
  await handler(
    { name: 't', payload: Buffer.from(''), tag: null, retryCount: leases },
    { signal: new AbortController().signal },
  );
  return out.trim();
}

describe('taskqueue work --exec: TASKQUEUE_TASK_RETRY_COUNT', () => {
  it('counts earlier attempts, as App Engine X-AppEngine-TaskRetryCount: 0 on the first', async () => {
    expect(await run(1)).toBe('0');
    expect(await run(2)).toBe('1');
    expect(await run(5)).toBe('4');
  });
});
