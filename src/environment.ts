import type { Environment } from './config/service-settings.js';

/**
 * The only reader of process.env. Everything else takes its settings as
 * arguments; the entry points (main.ts, the CLI's main, the package's
 * index.ts) get the environment from here, so none of them loads another's
 * module to reach it.
 */
export function environment(): Environment {
  return process.env;
}
