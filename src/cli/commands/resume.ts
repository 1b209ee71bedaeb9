import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { withClient } from '../open-client.js';
import { queueName } from '../option-parsers.js';

/** Registers `taskqueue resume QUEUE`. */
export function registerResume(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('resume')
      .summary('resume a paused queue')
      .description('Lets leases of the queue return tasks again.')
      .argument('<queue>', 'the queue', queueName),
  ).action(async (queue: string, flags: ConnectionFlags) => {
    await withClient(flags, ctx.io.env, (client) => client.setPaused(queue, false));
    ctx.io.out.write(`queue ${queue} resumed\n`);
  });
}
