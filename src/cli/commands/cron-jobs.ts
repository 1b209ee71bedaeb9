import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { withClient } from '../open-client.js';
import type { CronJobView } from '../operator-client.js';

/** One job as the lines of `cron list`. */
export function cronListLines(job: CronJobView): string[] {
  const last =
    job.lastFiredAt === null
      ? 'never fired'
      : `${job.lastFiredAt.toISOString()} ${job.lastTask ?? ''} ${job.lastOutcome ?? ''}${job.lastError === null ? '' : `: ${job.lastError}`}`;
  const retired =
    job.retiredAt === null
      ? ''
      : ` (retired ${job.retiredAt.toISOString()}: not in the cron file of the last server started)`;
  return [
    `${job.name}: ${job.schedule} (${job.timezone}) GET ${job.url} via queue ${job.queue}${retired}`,
    `  next: ${job.next.map((at) => at.toISOString()).join(', ') || 'none'}`,
    `  last: ${last}`,
  ];
}

/** Registers `taskqueue cron list` and `taskqueue cron run JOB` under `cron`. */
export function registerCronJobs(cron: Command, ctx: CommandContext): void {
  withConnectionOptions(
    cron
      .command('list')
      .summary('the jobs the servers run, with next and last firing')
      .description(
        'Each cron job the servers recorded: schedule, timezone, url and queue, the next three firings, and the last firing with its outcome.',
      )
      .option('--json', 'one JSON object per job'),
  ).action(async (flags: ConnectionFlags & { json?: boolean }) => {
    const jobs = await withClient(flags, ctx.io.env, (client) => client.cronJobs());
    if (jobs.length === 0)
      ctx.io.out.write('no cron jobs recorded (a server records them when it starts with a cron.yaml)\n');
    for (const job of jobs)
      ctx.io.out.write(flags.json === true ? `${JSON.stringify(job)}\n` : `${cronListLines(job).join('\n')}\n`);
  });
  withConnectionOptions(
    cron
      .command('run')
      .summary('fire a job now, once')
      .description(
        'Adds one firing of the job now, outside its schedule (task cron-<job>-run-<time>); the schedule goes on as before.',
      )
      .argument('<job>', 'the job name (see cron list)'),
  ).action(async (name: string, flags: ConnectionFlags) => {
    const firing = await withClient(flags, ctx.io.env, (client) => client.runCronJob(name));
    ctx.io.out.write(
      `${firing.job}: task ${firing.task} ${firing.outcome}${firing.error === null ? '' : `: ${firing.error}`}\n`,
    );
    if (firing.outcome !== 'added') ctx.exitCode = 1;
  });
}
