import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { EXIT } from '../exit-codes.js';
import { withClient } from '../open-client.js';
import { queueName, taskNames } from '../option-parsers.js';
import { UsageError } from '../usage-error.js';

interface RunNowFlags extends ConnectionFlags {
  all?: boolean;
  state?: string;
  tag?: string;
  dryRun?: boolean;
}

/** Registers `taskqueue run-now QUEUE [NAME...] | --all [--state S] [--tag T] [--dry-run]`. */
export function registerRunNow(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('run-now')
      .summary('make tasks due now (retry now)')
      .description(
        'Makes the named tasks, or with --all every task not due yet (of a --state and --tag), due now: a push ' +
          'task is delivered at once (its backoff cut short), a pull task becomes available (a leased one loses its ' +
          'lease). Tasks in flight are left alone. Recorded in the audit log as run_now. A dead letter is put back ' +
          'with `taskqueue redrive`. Exit code 3 when a named task was not run (due already, in flight or gone).',
      )
      .argument('<queue>', 'the queue', queueName)
      .argument('[names...]', 'task names', taskNames)
      .option('--all', 'every task not due yet that matches --state and --tag')
      .option('--state <state>', 'with --all: delayed (never leased) or leased')
      .option('--tag <tag>', 'with --all: only tasks of this tag')
      .option('--dry-run', 'with --all: only count them'),
  ).action(async (queue: string, names: string[] | undefined, flags: RunNowFlags) => {
    const named = names === undefined || names.length === 0 ? undefined : [...new Set(names)];
    if ((named === undefined) === (flags.all !== true)) throw new UsageError('name tasks, or pass --all, not both');
    if (named !== undefined && (flags.state !== undefined || flags.tag !== undefined || flags.dryRun))
      throw new UsageError('--state, --tag and --dry-run go with --all');
    if (flags.state !== undefined && flags.state !== 'delayed' && flags.state !== 'leased')
      throw new UsageError('--state is delayed or leased');
    const state = flags.state as 'delayed' | 'leased' | undefined;
    const selection =
      named !== undefined
        ? { names: named }
        : {
            filter: {
              ...(state === undefined ? {} : { state }),
              ...(flags.tag === undefined ? {} : { tag: flags.tag }),
            },
            ...(flags.dryRun ? { dryRun: true } : {}),
          };
    const ran = await withClient(flags, ctx.io.env, (client) => client.runNow(queue, selection));
    ctx.io.out.write(
      flags.dryRun ? `${ran} task(s) of ${queue} would run now\n` : `made ${ran} task(s) of ${queue} due now\n`,
    );
    if (named !== undefined && ran < named.length) {
      ctx.io.err.write(
        `taskqueue run-now: ${named.length - ran} of the ${named.length} task(s) were due already, in flight or gone\n`,
      );
      ctx.exitCode = EXIT.notFound;
    }
  });
}
