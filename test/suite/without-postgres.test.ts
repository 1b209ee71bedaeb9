import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A loopback port nothing listens on (bound, then closed): connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface JsonReport {
  testResults: { name: string; status: string; message: string; assertionResults: { status: string }[] }[];
}

describe('the suite without PostgreSQL', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('runs the unit files, then fails each db file saying what is missing and what to do', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'taskqueue-no-pg-'));
    dirs.push(dir);
    const url = `postgres://postgres@127.0.0.1:${await closedPort()}/test`;
    const report = join(dir, 'report.json');
    // One unit file and one db file, in a vitest of its own with a clean environment.
    const code = await new Promise<number | null>((resolve) => {
      execFile(
        process.execPath,
        [
          join(ROOT, 'node_modules/vitest/vitest.mjs'),
          'run',
          'test/core/clock-seam.test.ts',
          'test/store/lease.test.ts',
          '--reporter=json',
          `--outputFile=${report}`,
        ],
        {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, TEST_DATABASE_URL: url },
          timeout: 120_000,
        },
        (error) => resolve(error ? ((error as { code?: number }).code ?? null) : 0),
      );
    });
    expect(code).toBe(1);
    const { testResults } = JSON.parse(await readFile(report, 'utf8')) as JsonReport;
    const unit = testResults.find((file) => file.name.endsWith('test/core/clock-seam.test.ts'));
    const db = testResults.find((file) => file.name.endsWith('test/store/lease.test.ts'));
    expect(unit?.status).toBe('passed');
    expect(unit?.assertionResults.length).toBeGreaterThan(0);
    expect(db?.status).toBe('failed');
    expect(db?.message).toContain(`The db tests need PostgreSQL at ${url}`);
    expect(db?.message).toContain('TEST_DATABASE_URL');
  });
});
