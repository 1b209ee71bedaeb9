import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The package's `bin` (scripts/taskqueue.mjs) in a copy of the package laid
 * out as a checkout or an installed package, built or not: `npx taskqueue`
 * runs it, and without dist/ it says what to do.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];

function packageCopy(parts: { src?: boolean; dist?: string }): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskqueue-bin-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(ROOT, 'scripts/taskqueue.mjs'), join(dir, 'scripts/taskqueue.mjs'));
  if (parts.src) {
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/index.ts'), '');
  }
  if (parts.dist !== undefined) {
    mkdirSync(join(dir, 'dist/cli'), { recursive: true });
    writeFileSync(join(dir, 'dist/cli/main.js'), parts.dist);
  }
  return dir;
}

function runBin(dir: string, args: string[]) {
  return spawnSync(process.execPath, [join(dir, 'scripts/taskqueue.mjs'), ...args], { encoding: 'utf8', cwd: dir });
}

describe('the taskqueue bin', () => {
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('is what package.json names, and is packed', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      files: string[];
    };
    expect(pkg.bin).toEqual({ taskqueue: './scripts/taskqueue.mjs' });
    expect(pkg.files).toContain('scripts/taskqueue.mjs');
  });

  it('runs dist/cli/main.js with the arguments, and its exit code', () => {
    const dir = packageCopy({ dist: 'console.log(JSON.stringify(process.argv.slice(2))); process.exitCode = 3;\n' });
    const run = runBin(dir, ['stats', 'jobs', '--json']);
    expect(run.stdout.trim()).toBe('["stats","jobs","--json"]');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(3);
  });

  it('in a checkout that was never built, says to build it', () => {
    const run = runBin(packageCopy({ src: true }), ['queues']);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('is not built: dist/ is missing');
    expect(run.stderr).toContain('npm run build');
  });

  it('in an installed copy without dist/, says how to install it built', () => {
    const run = runBin(packageCopy({}), ['queues']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('installed without its build');
    expect(run.stderr).toContain('npm pack');
    expect(run.stderr).toContain('Depending on taskqueue');
  });

  it('in a checkout edited since its build, runs the build and says it is old', () => {
    const dir = packageCopy({ src: true, dist: 'console.log("ran");\n' });
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(dir, 'dist/cli/main.js'), past, past);
    const run = runBin(dir, []);
    expect(run.stdout.trim()).toBe('ran');
    expect(run.stderr).toContain('src/ changed since dist/ was built');
  });
});
