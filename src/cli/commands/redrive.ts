import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { EXIT } from '../exit-codes.js';
import { withClient } from '../open-client.js';
import { queueName, taskNames } from '../option-parsers.js';

/** Registers `taskqueue redrive QUEUE [NAME...]`. */
export function registerRedrive(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('redrive')
      .summary('put dead letters back as new tasks')
      .description(
        "Puts the named dead letters (without names: all of the queue's) back as tasks under their names, " +
          'leasable at once with a retry count of 0. Exit code 3 when a named one had no dead letter.',
      )
      .argument('<queue>', 'the queue', queueName)
      .argument('[names...]', 'task names of dead letters', taskNames),
  ).action(async (queue: string, names: string[] | undefined, flags: ConnectionFlags) => {
    const named = names === undefined || names.length === 0 ? undefined : [...new Set(names)];
    const redriven = await withClient(flags, ctx.io.env, (client) => client.redrive(queue, named));
    ctx.io.out.write(`redriven ${redriven} dead letter(s) to ${queue}\n`);
    if (named !== undefined && redriven < named.length) {
      ctx.io.err.write(
        `taskqueue redrive: ${named.length - redriven} of the ${named.length} name(s) had no dead letter in ${queue}\n`,
      );
      ctx.exitCode = EXIT.notFound;
      return;
    }
  });
}
