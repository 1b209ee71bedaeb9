import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { EXIT } from '../exit-codes.js';
import { withClient } from '../open-client.js';
import { queueName, taskNames } from '../option-parsers.js';

/** Registers `taskqueue delete QUEUE NAME...`. */
export function registerDelete(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('delete')
      .summary('delete tasks by name')
      .description(
        'Deletes the named tasks, leased or not. Exit code 3 when any name was not a live task (the others are deleted).',
      )
      .argument('<queue>', 'the queue', queueName)
      .argument('<names...>', 'task names (at most 1000)', taskNames),
  ).action(async (queue: string, names: string[], flags: ConnectionFlags) => {
    const unique = [...new Set(names)];
    const deleted = await withClient(flags, ctx.io.env, (client) => client.delete(queue, unique));
    const missing = unique.filter((_, i) => !deleted[i]);
    for (const name of missing) ctx.io.err.write(`taskqueue delete: no live task "${name}" in queue ${queue}\n`);
    ctx.io.out.write(`deleted ${unique.length - missing.length} of ${unique.length} task(s) from ${queue}\n`);
    ctx.exitCode = missing.length > 0 ? EXIT.notFound : EXIT.ok;
  });
}
