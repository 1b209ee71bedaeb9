import type { Command } from 'commander';
import { writeJsonLine, type CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { withClient } from '../open-client.js';
import { queueName, taskName } from '../option-parsers.js';

/** Registers `taskqueue get QUEUE NAME`. */
export function registerGet(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('get')
      .summary('print one task')
      .description(
        'Prints one live task as a JSON line (as add and lease do; a push task adds its request, secret header values hidden), ' +
          'without leasing or changing it. Exit code 3 when the queue or the task does not exist.',
      )
      .argument('<queue>', 'the queue', queueName)
      .argument('<name>', 'the task name', taskName),
  ).action(async (queue: string, name: string, flags: ConnectionFlags) => {
    writeJsonLine(ctx.io, await withClient(flags, ctx.io.env, (client) => client.get(queue, name)));
  });
}
