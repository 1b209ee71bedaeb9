import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * User documentation says what the service does and how fast, not how each
 * measurement went on a loaded machine: those notes belong in
 * docs/performance.md (and the torture and scaling reports, which are
 * measurement reports themselves).
 */
const MEASUREMENT_REPORTS = new Set(['performance.md', 'reliability.md', 'scaling.md']);
const DIARY = /load average|busy machine|shared machine/i;

describe('user docs', () => {
  it('carry no measurement diaries', () => {
    const docs = readdirSync(new URL('../../docs/', import.meta.url)).filter(
      (name) => name.endsWith('.md') && !MEASUREMENT_REPORTS.has(name),
    );
    const files = [
      ['README.md', new URL('../../README.md', import.meta.url)] as const,
      ...docs.map((name) => [`docs/${name}`, new URL(`../../docs/${name}`, import.meta.url)] as const),
    ];
    const found = files.flatMap(([name, url]) =>
      readFileSync(url, 'utf8')
        .split('\n')
        .flatMap((line, i) => (DIARY.test(line) ? [`${name}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
