import type { Command } from 'commander';
import { LIMITS } from '../../core/limits.js';
import { writeJsonLine, type CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { withClient } from '../open-client.js';
import { queueName, wholeNumber } from '../option-parsers.js';

interface LeaseFlags extends ConnectionFlags {
  num: number;
  leaseSecs: number;
  tag?: string;
}

/** Registers `taskqueue lease QUEUE`. */
export function registerLease(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('lease')
      .summary('lease tasks and print them as JSON lines')
      .description(
        'Leases up to --num tasks for --lease-secs seconds and prints each as a JSON line (payloadBase64, and ' +
          'etaUsec: the lease token). Prints nothing when no task is available or the queue is paused.',
      )
      .argument('<queue>', 'the queue', queueName)
      .option('--num <n>', 'at most this many tasks', wholeNumber(1, LIMITS.maxTasksPerLease), 1)
      .option('--lease-secs <seconds>', 'lease length in seconds', wholeNumber(0, LIMITS.maxLeaseMs / 1000), 60)
      .option('--tag <tag>', 'lease only tasks with this tag'),
  ).action(async (queue: string, flags: LeaseFlags) => {
    const tasks = await withClient(flags, ctx.io.env, (client) =>
      client.lease(queue, {
        numTasks: flags.num,
        leaseSecs: flags.leaseSecs,
        ...(flags.tag === undefined ? {} : { tag: flags.tag }),
      }),
    );
    for (const task of tasks) writeJsonLine(ctx.io, task);
  });
}
