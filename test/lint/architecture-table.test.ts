import { readFile } from 'node:fs/promises';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;

/** The allow-list as ESLint applies it (the options of layers/allowed-imports). */
async function allowList(): Promise<Record<string, string[]>> {
  const config = (await new ESLint({ cwd: ROOT }).calculateConfigForFile('src/core/any.ts')) as {
    rules: Record<string, [unknown, { allow: Record<string, string[]> }]>;
  };
  return config.rules['layers/allowed-imports']![1].allow;
}

/** docs/architecture.md's table: part of src/ -> what it may import (backticked names, asides in parentheses left out). */
async function documentedTable(): Promise<Record<string, string[]>> {
  const text = await readFile(`${ROOT}docs/architecture.md`, 'utf8');
  const rows: Record<string, string[]> = {};
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const part = /^`([a-z-]+(?:\.ts)?)\/?`$/.exec(cells[1] ?? '')?.[1];
    if (part === undefined || cells.length < 5) continue;
    const allowed = (cells[3] ?? '').replace(/\([^)]*\)/g, '');
    rows[part] = [...allowed.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  }
  return rows;
}

describe('docs/architecture.md', () => {
  it('lists what each part of src/ may import exactly as the lint allow-list does', async () => {
    const [table, allow] = await Promise.all([documentedTable(), allowList()]);
    const sorted = (o: Record<string, string[]>) =>
      Object.fromEntries(
        Object.entries(o)
          .map(([k, v]) => [k, [...v].sort()])
          .sort(([a], [b]) => String(a).localeCompare(String(b))),
      );
    expect(sorted(table)).toEqual(sorted(allow));
  });
});
