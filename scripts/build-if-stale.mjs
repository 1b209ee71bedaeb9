// `npm start` and `npm run prepare`: build dist/ when it is missing or older
// than src/, so a changed checkout never runs stale code. Where TypeScript is
// not installed (a production install, `npm ci --omit=dev`), nothing is
// built: an up-to-date dist/ is used as it is, a missing or stale one is
// reported (exit 1 for `npm start`; `prepare` just says so, so that the
// install itself succeeds).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const mode = process.argv[2] === 'prepare' ? 'prepare' : 'start';
const built = join(root, 'dist', 'main.js');

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

// sql/ too: the migrations and routines are compiled into dist/ (src/store/migrate/migrations.ts is generated from it).
const sources = Math.max(
  newest(join(root, 'src')),
  newest(join(root, 'sql')),
  ...['package.json', 'tsconfig.json', 'tsconfig.build.json'].map((f) =>
    existsSync(join(root, f)) ? statSync(join(root, f)).mtimeMs : 0,
  ),
);
const output = existsSync(built) ? statSync(built).mtimeMs : 0;
const hasSources = existsSync(join(root, 'src'));
if (output > 0 && (!hasSources || output >= sources)) process.exit(0);

let hasTypeScript = true;
try {
  createRequire(import.meta.url).resolve('typescript');
} catch {
  hasTypeScript = false;
}
if (!hasSources || !hasTypeScript) {
  const what = output === 0 ? 'dist/ is missing' : 'dist/ is older than src/';
  process.stderr.write(
    `taskqueue: ${what} and TypeScript is not installed (a production install). ` +
      'Build where the dev dependencies are (npm ci && npm run build), then install with npm ci --omit=dev.\n',
  );
  process.exit(mode === 'prepare' ? 0 : 1);
}
process.stderr.write(
  `taskqueue: ${output === 0 ? 'building dist/' : 'src/ changed since the last build: rebuilding dist/'}\n`,
);
const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
