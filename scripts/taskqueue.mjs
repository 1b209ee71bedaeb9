#!/usr/bin/env node
// The package's `bin`: runs dist/cli/main.js. It exists in every copy of the
// package, built or not, so that `npx taskqueue` in a checkout that was never
// built, or in a project whose copy was installed without its build, says
// what to do instead of the shell's "taskqueue: not found" (a bin pointing
// straight at a missing dist/ file is not linked at all).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist', 'cli', 'main.js');
const isCheckout = existsSync(join(root, 'src'));

/** Newest modification time under a directory (0 when it does not exist). */
function newest(dir) {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

if (!existsSync(cli)) {
  process.stderr.write(
    isCheckout
      ? `taskqueue: this checkout (${root}) is not built: dist/ is missing.\n` +
          '  Build it once with `npm ci && npm run build` (`npm start` builds too), then run `npx taskqueue` again.\n'
      : `taskqueue: this copy of the package (${root}) has no dist/: it was installed without its build\n` +
          '  (a git dependency installed with --ignore-scripts, or a folder that was never built).\n' +
          '  Install a packed tarball (`npm pack` in a built checkout, then `npm install ./taskqueue-<version>.tgz`)\n' +
          '  or the git URL with scripts enabled: README.md, "Depending on taskqueue".\n',
  );
  process.exit(1);
}
// A checkout edited since its build would run old code without a word.
if (isCheckout && newest(join(root, 'src')) > statSync(cli).mtimeMs) {
  process.stderr.write(
    'taskqueue: src/ changed since dist/ was built; this runs the old build (`npm run build` to refresh it)\n',
  );
}
await import(pathToFileURL(cli).href);
