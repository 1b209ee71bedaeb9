import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/**
 * The CLI loads a command's heavy modules (database drivers, the embedded
 * engine, the HTTP server and client, JWT signing) when that command runs,
 * not at start: `--version`, help and a usage error load none of them. A
 * module hook refuses to resolve them, so loading one fails the run.
 */
const HEAVY = ['pg', 'kysely', '@electric-sql/pglite', 'undici', 'hono', '@hono/node-server', 'jose'];
const HOOK = `const HEAVY = new Set(${JSON.stringify(HEAVY)});
export async function resolve(specifier, context, next) {
  if (HEAVY.has(specifier)) throw new Error('start-up loaded ' + specifier + ' from ' + context.parentURL);
  return next(specifier, context);
}`;

describe('CLI start-up loads only what the command needs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-start-'));
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)});\n`,
  );
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', '--import', register, MAIN, ...args], {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: '' },
      timeout: 120_000,
    });

  it.each([
    ['--version'],
    ['--help'],
    ['queues', '--help'],
    ['serve', '--help'],
    ['token', '--help'],
    ['get', 'q', 'bad name'],
  ])('%s %s', (...args) => {
    const result = run(...args.filter((a): a is string => typeof a === 'string'));
    expect(result.stderr).not.toContain('start-up loaded');
    expect(result.status).toBe(args[0] === 'get' ? 2 : 0);
  });

  it('the hook does refuse them (a command that opens the database trips it)', () => {
    const result = run('queues', '--database-url', 'postgres://127.0.0.1:1/none');
    expect(result.stderr).toContain('start-up loaded');
  });
});
