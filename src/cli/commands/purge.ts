import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { withClient } from '../open-client.js';
import { queueName } from '../option-parsers.js';
import { UsageError } from '../usage-error.js';

/** Registers `taskqueue purge QUEUE --yes`. */
export function registerPurge(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('purge')
      .summary('delete every task of a queue')
      .description(
        'Deletes every task of the queue, leased or not (their names stay held as after a delete). Needs --yes.',
      )
      .argument('<queue>', 'the queue', queueName)
      .option('--yes', 'really delete every task'),
  ).action(async (queue: string, flags: ConnectionFlags & { yes?: boolean }) => {
    if (!flags.yes) throw new UsageError(`purge deletes every task of queue ${queue}; add --yes to do it`);
    const purged = await withClient(flags, ctx.io.env, (client) => client.purge(queue));
    ctx.io.out.write(`purged ${purged} task(s) from ${queue}\n`);
  });
}
