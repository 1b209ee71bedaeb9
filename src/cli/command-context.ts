import type { CliIo } from './cli-io.js';

/**
 * What a command's action needs: the streams and environment of this run,
 * and where it leaves its exit code (commander's actions return nothing).
 */
export interface CommandContext {
  readonly io: CliIo;
  exitCode: number;
}

/** Prints one JSON value per line. */
export function writeJsonLine(io: CliIo, value: unknown): void {
  io.out.write(`${JSON.stringify(value)}\n`);
}
