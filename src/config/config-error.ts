import { QueueError } from '../core/errors.js';

/**
 * Where in a configuration file a problem was found. Every configuration
 * error names the file, and the queue and element when there is one, because
 * an operator fixing a 60-queue file needs to know exactly where to look.
 */
export interface ConfigErrorLocation {
  /** The file (or source string) being read. */
  readonly file: string;
  /** The queue's name, once it is known. */
  readonly queue?: string;
  /** 1-based position of the queue in the file, for queues whose name is missing or invalid. */
  readonly queueIndex?: number;
  /** The cron job's name (cron.yaml / cron.xml), once it is known. */
  readonly job?: string;
  /** 1-based position of the cron job in the file, for jobs whose name is not known. */
  readonly jobIndex?: number;
  /** The element (XML) or key (YAML) as written in the file. */
  readonly element?: string;
  /** 1-based line and column, when the parser reports them (syntax errors). */
  readonly line?: number;
  readonly column?: number;
}

/**
 * Builds the one error type of configuration problems: a QueueError with
 * code INVALID_CONFIG whose message starts with `file: queue "name": ` so it
 * reads well on a terminal, and whose details carry the same facts for code.
 */
export function configError(location: ConfigErrorLocation, message: string, options?: { cause?: unknown }): QueueError {
  let prefix = location.file;
  if (location.line !== undefined) {
    prefix += `: line ${location.line}`;
    if (location.column !== undefined) prefix += `, column ${location.column}`;
  }
  if (location.queue !== undefined) prefix += `: queue "${location.queue}"`;
  else if (location.queueIndex !== undefined) prefix += `: queue #${location.queueIndex}`;
  if (location.job !== undefined) prefix += `: job "${location.job}"`;
  else if (location.jobIndex !== undefined) prefix += `: job #${location.jobIndex}`;
  const details: Record<string, unknown> = { file: location.file };
  for (const key of ['queue', 'queueIndex', 'job', 'jobIndex', 'element', 'line', 'column'] as const) {
    if (location[key] !== undefined) details[key] = location[key];
  }
  return new QueueError('INVALID_CONFIG', `${prefix}: ${message}`, details, options);
}
