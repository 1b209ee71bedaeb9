import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The console's script (client code and uPlot, bundled) and stylesheet, served by the service itself. */
export interface ConsoleAssets {
  readonly js: string;
  readonly css: string;
  /** A hash of both, for cache-busting asset URLs. */
  readonly version: string;
}

/** Where `npm run build` puts them: dist/console/assets/, next to this module once compiled. */
const BUILT = new URL('./assets/', import.meta.url);
/** The client entry, for running from source (tests, tsx): bundled in memory on first use. */
const CLIENT_ENTRY = fileURLToPath(new URL('./client/console-client.ts', import.meta.url));

let loaded: Promise<ConsoleAssets> | null = null;

/**
 * The built assets; when running from source (no build next to this file),
 * the same bundle made in memory with esbuild, a development dependency the
 * built package never needs.
 */
export function consoleAssets(): Promise<ConsoleAssets> {
  loaded ??= readBuilt().catch(bundleFromSource);
  return loaded;
}

async function readBuilt(): Promise<ConsoleAssets> {
  const [js, css] = await Promise.all([
    readFile(new URL('console.js', BUILT), 'utf8'),
    readFile(new URL('console.css', BUILT), 'utf8'),
  ]);
  return withVersion(js, css);
}

async function bundleFromSource(): Promise<ConsoleAssets> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    ...CLIENT_BUILD_OPTIONS,
    entryPoints: { console: CLIENT_ENTRY },
    outdir: 'out',
    write: false,
  });
  const js = result.outputFiles.find((file) => file.path.endsWith('.js'))?.text ?? '';
  const css = result.outputFiles.find((file) => file.path.endsWith('.css'))?.text ?? '';
  return withVersion(js, css);
}

/** The esbuild options of the client bundle; src/console/client/build.mjs imports them from the build. */
export const CLIENT_BUILD_OPTIONS = {
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  platform: 'browser',
  legalComments: 'none',
} as const;

function withVersion(js: string, css: string): ConsoleAssets {
  const version = createHash('sha256').update(js).update(css).digest('hex').slice(0, 12);
  return { js, css, version };
}
