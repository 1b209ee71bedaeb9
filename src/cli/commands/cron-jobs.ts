import type { Command } from 'commander';
import { CRON_HISTORY_MAX, isFailing, type CronFiringEntry } from '../../core/cron/cron-history.js';
import { wholeNumber } from '../option-parsers.js';
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

/** One firing as a line of `cron history`: instant, outcome, attempts, last error, task. */
export function cronHistoryLine(entry: CronFiringEntry): string {
  const failed = entry.outcome === 'failed' || entry.outcome === 'retrying';
  const detail = failed
    ? ` (delivery failed ${entry.attempts} time${entry.attempts === 1 ? '' : 's'}${entry.lastError === null ? '' : `, last ${entry.lastError}`})`
    : '';
  return `${entry.instant.toISOString()}${entry.run ? ' run' : ''} ${entry.outcome}${detail} ${entry.task}`;
}

/** Registers `taskqueue cron list`, `cron run JOB` and `cron history JOB` under `cron`. */
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
  withConnectionOptions(
    cron
      .command('history')
      .summary("a job's latest firings and how each went")
      .description(
        'Lists the latest firings of a job, newest first: instant, outcome (pending, retrying, delivered, failed), delivery attempts and last error, task name. Exits 1 when the job is failing: its latest firing that ended failed, or is being retried.',
      )
      .argument('<job>', 'the job name (see cron list)')
      .option('--limit <n>', `firings (1 to ${CRON_HISTORY_MAX}, default 20)`, wholeNumber(1, CRON_HISTORY_MAX), 20)
      .option('--json', 'one JSON object per firing'),
  ).action(async (name: string, flags: ConnectionFlags & { limit: number; json?: boolean }) => {
    const history = await withClient(flags, ctx.io.env, (client) => client.cronHistory(name, flags.limit));
    if (history.length === 0) ctx.io.out.write(`${name}: no firing in the retention period\n`);
    for (const entry of history)
      ctx.io.out.write(flags.json === true ? `${JSON.stringify(entry)}\n` : `${cronHistoryLine(entry)}\n`);
    if (isFailing(history)) ctx.exitCode = 1;
  });
}
