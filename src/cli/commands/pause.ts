import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { withClient } from '../open-client.js';
import { queueName } from '../option-parsers.js';

/** Registers `taskqueue pause QUEUE`. */
export function registerPause(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('pause')
      .summary('pause a queue: leases return nothing')
      .description(
        'Pauses the queue for every process sharing the database: adds and deletes go on, leases return nothing until resume.',
      )
      .argument('<queue>', 'the queue', queueName),
  ).action(async (queue: string, flags: ConnectionFlags) => {
    await withClient(flags, ctx.io.env, (client) => client.setPaused(queue, true));
    ctx.io.out.write(`queue ${queue} paused\n`);
  });
}
