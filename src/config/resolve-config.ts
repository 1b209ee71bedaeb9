import { existsSync } from 'node:fs';
import type { CronConfig } from '../core/cron/cron-job.js';
import type { ServiceConfig } from '../core/queue-config.js';
import { builtInConfig, loadConfigFile } from './load-config.js';
import { findCronFile, loadCronFile } from './load-cron-config.js';
import type { ServiceSettings } from './service-settings.js';

/** The files looked for in the working directory when no configuration is named, in this order. */
export const DEFAULT_CONFIG_FILES = ['queue.xml', 'queue.yaml', 'queue.yml'] as const;

/**
 * A config path or object; with neither, the first of DEFAULT_CONFIG_FILES
 * that exists, else the built-in sample. A named file that does not exist is
 * an error (loadConfigFile), never a silent fallback to the sample.
 */
export async function resolveConfig(
  config: string | ServiceConfig | null,
  settings: ServiceSettings,
): Promise<ServiceConfig> {
  const options = { maxActiveQueues: settings.maxActiveQueues };
  if (config === null) {
    const found = DEFAULT_CONFIG_FILES.find((file) => existsSync(file));
    return found === undefined ? builtInConfig() : loadConfigFile(found, options);
  }
  if (typeof config === 'string') return loadConfigFile(config, options);
  return config;
}

/** The cron jobs: a path, the jobs themselves, or none (false); with no path, ./cron.yaml or ./cron.xml if present. */
export async function resolveCron(cron: string | CronConfig | false | null): Promise<CronConfig | null> {
  if (cron === false) return null;
  if (cron !== null && typeof cron !== 'string') return cron;
  const file = await findCronFile(cron);
  return file === null ? null : loadCronFile(file);
}
