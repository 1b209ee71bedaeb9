import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('taskqueue/client', () => {
  it('bundles without a database driver, Kysely, Hono or the server layers', async () => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL('../../src/client/index.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      // undici (the HTTP client) is a dependency of the package, not part of what is measured here.
      external: ['undici'],
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter((path) =>
        /node_modules\/(pg|pg-[a-z]+|kysely|hono|@hono|@electric-sql|pino|prom-client)\//.test(path),
      ),
    ).toEqual([]);
    expect(inputs.filter((path) => /src\/(store|http|auth|console|cli|ops|config)\//.test(path))).toEqual([]);
    expect(inputs.some((path) => path.endsWith('src/client/task-queue-client.ts'))).toBe(true);
    // The only package it reaches at run time besides Node's own modules.
    const imported = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path));
    expect([...new Set(imported.filter((path) => !path.startsWith('node:')))]).toEqual(['undici']);
    // Small: the client and the runner, nothing else of the service.
    expect(result.outputFiles[0]!.contents.byteLength).toBeLessThan(80_000);
  });
});
