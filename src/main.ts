import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { environment } from './environment.js';

/** The server's entry point (`node dist/main.js`): `taskqueue serve` with the process's arguments and environment. */

/** True when this file is the script node was asked to run (not imported). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const { runCli } = await import('./cli/run-cli.js');
  process.exitCode = await runCli(['serve', ...process.argv.slice(2)], environment());
}
