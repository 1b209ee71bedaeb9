import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src', import.meta.url).pathname;

/** Every .ts/.tsx file of src/. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The files of src/ a file imports (type-only imports too: a cycle of types is still a knot for a reader). */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*|^import\s+)'(\.[^']+)'/gm)) {
    const target = resolve(dirname(file), match[1]!);
    for (const candidate of [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target]) {
      if (known.has(candidate)) {
        found.push(candidate);
        break;
      }
    }
  }
  return found;
}

/** The strongly connected components of more than one file (or a file importing itself): Tarjan's algorithm. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

describe('the import graph of src/', () => {
  it('has no cycle, type-only imports included', () => {
    const files = sourceFiles(SRC);
    const known = new Set(files);
    const graph = new Map(files.map((file) => [file, importsOf(file, known)]));
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph).map((component) => component.map((file) => relative(SRC, file)))).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself works)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
  });
});
