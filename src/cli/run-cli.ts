import { CommanderError } from 'commander';
import type { Environment } from '../config/service-settings.js';
import { buildProgram } from './build-program.js';
import type { CliIo, CliOutput } from './cli-io.js';
import type { CommandContext } from './command-context.js';
import { EXIT, exitCodeOf } from './exit-codes.js';
import { printable } from './printable.js';

/**
 * Runs one CLI command; resolves to the process exit code (docs/cli.md:
 * 0 ok, 1 failure, 2 usage, 3 not found). The environment and streams come
 * from the caller (src/cli/main.ts passes the process's).
 */
export async function runCli(
  argv: readonly string[],
  env: Environment,
  out: CliOutput = process.stdout,
  err: CliOutput = process.stderr,
  stdin: CliIo['stdin'] = process.stdin,
): Promise<number> {
  const ctx: CommandContext = { io: { env, out, err, stdin }, exitCode: EXIT.ok };
  const program = buildProgram(ctx);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    // Commander has already written its own message (or the help).
    if (error instanceof CommanderError) return exitCodeOf(error);
    const command = argv.find((arg) => !arg.startsWith('-')) ?? '';
    err.write(`taskqueue ${command}: ${printable(describe(error))}\n`);
    return exitCodeOf(error);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
