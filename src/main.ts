import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Environment } from './config/service-settings.js';

/**
 * The composition root and the only reader of process.env. Everything else
 * takes its settings as arguments; the package entry (index.ts) and the CLI
 * get the environment from here.
 */
export function environment(): Environment {
  return process.env;
}

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
