import { InvalidArgumentError, type Command } from 'commander';
import type { CronConfig } from '../../core/cron/cron-job.js';
import { compileSchedule, nextFirings } from '../../cron/compile-schedule.js';
import { loadCronFile } from '../../config/load-cron-config.js';
import type { CommandContext } from '../command-context.js';
import { wholeNumber } from '../option-parsers.js';
import { registerCronJobs } from './cron-jobs.js';

/** Most firings `cron next` prints per job. */
const MAX_COUNT = 1000;
/** An ISO 8601 instant with its offset or Z: `2026-03-01T09:00:00Z`, `2026-03-01T10:00+01:00`. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

export interface CronNextOptions {
  /** The instant to count from; default now. */
  readonly from: Date;
  /** Firings per job. */
  readonly count: number;
}

/**
 * `taskqueue cron next FILE`: each job of a cron file with its next firings,
 * as ISO UTC lines: a `# name: schedule (timezone)` heading, then one
 * instant per line. Needs no database.
 */
export function cronNextCommand(config: CronConfig, options: CronNextOptions, out: NodeJS.WritableStream): number {
  if (config.jobs.length === 0) {
    out.write(`# ${config.source}: no jobs\n`);
    return 0;
  }
  for (const job of config.jobs) {
    const schedule = compileSchedule(job.schedule, { timeZone: job.timezone, job: job.name });
    out.write(`# ${job.name}: ${job.schedule} (${job.timezone})\n`);
    for (const firing of nextFirings(schedule, options.from, options.count)) out.write(`${firing.toISOString()}\n`);
  }
  return 0;
}

/** A commander parser for `--from`: an ISO instant with Z or an offset (a bare local time would be ambiguous). */
export function isoInstant(value: string): Date {
  const date = new Date(value);
  if (!ISO_INSTANT.test(value) || Number.isNaN(date.getTime())) {
    throw new InvalidArgumentError('expected an ISO 8601 instant with Z or an offset, such as 2026-03-01T09:00:00Z');
  }
  return date;
}

/** Registers `taskqueue cron next FILE [--from ISO] [--count N]`. */
export function registerCron(program: Command, ctx: CommandContext): void {
  const cron = program
    .command('cron')
    .summary('scheduled jobs of a cron.yaml or cron.xml')
    .description(
      'Scheduled jobs (App Engine cron.yaml / cron.xml): the servers fire them; these commands show and check them, and fire one now.',
    );
  registerCronJobs(cron, ctx);
  cron
    .command('next')
    .summary('print the next firing times of each job')
    .description(
      'Prints the next firing times of each job of a cron.yaml or cron.xml as ISO 8601 UTC lines, each job under a "# name: schedule (timezone)" line. Needs no database.',
    )
    .argument('<file>', 'the cron.yaml or cron.xml')
    .option('--from <iso>', 'count from this instant (ISO 8601 with Z or an offset; default now)', isoInstant)
    .option('--count <n>', `firings per job (1 to ${MAX_COUNT}, default 5)`, wholeNumber(1, MAX_COUNT), 5)
    .action(async (file: string, flags: { from?: Date; count: number }) => {
      const config = await loadCronFile(file);
      ctx.exitCode = cronNextCommand(
        config,
        { from: flags.from ?? new Date(), count: flags.count },
        ctx.io.out as NodeJS.WritableStream,
      );
    });
}
