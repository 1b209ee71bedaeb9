import { CommanderError } from 'commander';
import { isQueueError } from '../core/errors.js';
import { RemoteError } from './remote-error.js';
import { UsageError } from './usage-error.js';

/**
 * The exit codes scripts can rely on (docs/cli.md): 0 done, 1 failed,
 * 2 the command line was wrong (nothing was done), 3 the queue or task
 * named does not exist.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, notFound: 3 } as const;

/** Commander's codes for help and --version: not failures. */
const INFORMATIONAL = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);

/** QueueError codes that mean "no such queue or task". */
const NOT_FOUND = new Set(['UNKNOWN_QUEUE', 'UNKNOWN_TASK']);

/** The exit code an error ends the CLI with. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) {
    if (INFORMATIONAL.has(error.code)) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return EXIT.usage;
  }
  if (error instanceof UsageError) return EXIT.usage;
  if (isQueueError(error) && NOT_FOUND.has(error.code)) return EXIT.notFound;
  if (error instanceof RemoteError && error.status === 404) return EXIT.notFound;
  // A message with context added (import: how many went in) keeps the code of its cause.
  if (error instanceof Error && error.cause !== undefined) return exitCodeOf(error.cause);
  return EXIT.failure;
}
