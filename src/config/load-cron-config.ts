import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { CronConfig } from '../core/cron/cron-job.js';
import { parseCronXml } from './parse-cron-xml.js';
import { parseCronYaml } from './parse-cron-yaml.js';
import { configFormatOf } from './load-config.js';
import { readConfigFile } from './read-config-file.js';

/** Where a service looks for its cron file when TASKQUEUE_CRON is not set, in order (in the working directory). */
export const DEFAULT_CRON_FILES = ['cron.yaml', 'cron.xml'] as const;

/** Parses cron file text of a known format; `source` names it in messages and in the result. */
export function parseCronText(text: string, source: string, format: 'xml' | 'yaml'): CronConfig {
  return format === 'xml' ? parseCronXml(text, source) : parseCronYaml(text, source);
}

/**
 * Reads and validates a cron.yaml / cron.xml, choosing the parser by
 * extension (`.yaml`/`.yml` or `.xml`). Size and type limits are those of
 * queue files (read-config-file.ts); every problem is INVALID_CONFIG.
 */
export async function loadCronFile(path: string): Promise<CronConfig> {
  const format = configFormatOf(path);
  return parseCronText(await readConfigFile(path), path, format);
}

/**
 * The cron file a service uses: `configured` (TASKQUEUE_CRON) when given,
 * else ./cron.yaml, else ./cron.xml, else none (null: no jobs, and nothing
 * to warn about). A configured file that does not exist is an error.
 */
export async function findCronFile(configured: string | null, dir = '.'): Promise<string | null> {
  if (configured !== null) return configured;
  for (const name of DEFAULT_CRON_FILES) {
    const candidate = join(dir, name);
    if (await exists(candidate)) return candidate;
  }
  return null;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
