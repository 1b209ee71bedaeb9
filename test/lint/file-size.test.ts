import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src', import.meta.url).pathname;
/** Small files with one idea each: past this, a file is two ideas (CONTRIBUTING.md). Generated files aside. */
const MAX_LINES = 400;
const GENERATED = new Set(['store/migrate/migrations.ts']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|tsx|js|mjs)$/.test(name) ? [path] : [];
  });
}

describe('the size of src/ files', () => {
  it(`keeps every hand-written file at ${MAX_LINES} lines or fewer`, () => {
    const long = files(SRC)
      .map((file) => [relative(SRC, file), readFileSync(file, 'utf8').split('\n').length - 1] as const)
      .filter(([file, lines]) => lines > MAX_LINES && !GENERATED.has(file));
    expect(long).toEqual([]);
  });
});
