import { extname } from 'node:path';
import type { ServiceConfig } from '../core/queue-config.js';
import type { ConfigOptions } from './build-service-config.js';
import { configError } from './config-error.js';
import { parseQueueXml } from './parse-queue-xml.js';
import { parseQueueYaml } from './parse-queue-yaml.js';
import { readConfigFile } from './read-config-file.js';

export { builtInConfig, BUILT_IN_QUEUE_XML } from './built-in-config.js';
export { buildServiceConfig, DEFAULT_MAX_ACTIVE_QUEUES, type ConfigOptions } from './build-service-config.js';

export type ConfigFormat = 'xml' | 'yaml';

/**
 * The format of a configuration file, from its extension: `.xml` or
 * `.yaml`/`.yml` (any case). Anything else is an error rather than a guess,
 * so that `queue.txt` or a missing extension is reported instead of being
 * misread.
 */
export function configFormatOf(path: string): ConfigFormat {
  const extension = extname(path).toLowerCase();
  if (extension === '.xml') return 'xml';
  if (extension === '.yaml' || extension === '.yml') return 'yaml';
  throw configError(
    { file: path },
    `cannot tell the configuration format from the extension "${extension}"; use .xml, .yaml or .yml`,
  );
}

/** Parses configuration text of a known format; `source` names it in messages and in the result. */
export function parseConfigText(
  text: string,
  source: string,
  format: ConfigFormat,
  options: ConfigOptions = {},
): ServiceConfig {
  return format === 'xml' ? parseQueueXml(text, source, options) : parseQueueYaml(text, source, options);
}

/**
 * Reads and validates a queue.xml / queue.yaml file, choosing the parser by
 * extension. The result's `source` is `path` as given. Unreadable files,
 * FIFOs and other non-regular files, and files over 1 MB are INVALID_CONFIG
 * errors too, so a service refuses to start with one message.
 */
export async function loadConfigFile(path: string, options: ConfigOptions = {}): Promise<ServiceConfig> {
  const format = configFormatOf(path);
  return parseConfigText(await readConfigFile(path), path, format, options);
}
