import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** `--import` for children that run TypeScript, resolved here so the benchmark may run from any directory. */
export const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * A benchmark child script bundled into plain JavaScript, so that a child's
 * RSS is its own and not tsx's (whose loader adds some 80 MB). The bundle
 * lies two directories below the repository, like `src/store/migrate/migrate.ts`,
 * so the migrations' `../../sql/` still resolves. Falls back to tsx.
 */
export async function bundleScript(entry: string, label: string): Promise<{ script: string; execArgv: string[] }> {
  const bundle = fileURLToPath(new URL(`../../node_modules/.cache/taskqueue-bench-${label}.mjs`, import.meta.url));
  try {
    // esbuild is a devDependency.
    const esbuild = await import('esbuild');
    mkdirSync(new URL('../../node_modules/.cache/', import.meta.url), { recursive: true });
    await esbuild.build({
      entryPoints: [entry],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
    });
    return { script: bundle, execArgv: [] };
  } catch (error) {
    console.warn(
      `bench: could not bundle ${label} (${String(error)}); it runs under tsx, whose loader adds ~80 MB of RSS`,
    );
    return { script: entry, execArgv: ['--import', TSX] };
  }
}
