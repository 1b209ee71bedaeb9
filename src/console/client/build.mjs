// Bundles the console's client script (with uPlot) and stylesheet into
// dist/console/assets/, where the compiled console serves them from. Run by
// `npm run build` after tsc; the options match CLIENT_BUILD_OPTIONS in
// src/console/console-assets.ts (which bundles in memory when running from source).
import { build } from 'esbuild';
import { URL, fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

await build({
  entryPoints: { console: here('./console-client.ts') },
  outdir: here('../../../dist/console/assets/'),
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  platform: 'browser',
  legalComments: 'none',
  logLevel: 'warning',
});
