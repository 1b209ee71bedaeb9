// Bundles the console's client script (with uPlot) and stylesheet into
// dist/console/assets/, where the compiled console serves them from. Run by
// `npm run build` after tsc, so the options come from the compiled
// console-assets.js: the same CLIENT_BUILD_OPTIONS that bundle in memory when
// running from source.
import { build } from 'esbuild';
import { URL, fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const { CLIENT_BUILD_OPTIONS } = await import(new URL('../../../dist/console/console-assets.js', import.meta.url).href);

await build({
  ...CLIENT_BUILD_OPTIONS,
  entryPoints: { console: here('./console-client.ts') },
  outdir: here('../../../dist/console/assets/'),
  logLevel: 'warning',
});
