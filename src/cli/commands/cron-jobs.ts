import type { Command } from 'commander';
import { QueueError } from '../../core/errors.js';
import type { CronJobStatus } from '../../core/cron-service.js';
import type { CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import type { DatabaseClient } from '../database-client.js';
import { openClient } from '../open-client.js';
import type { OperatorClient } from '../operator-client.js';

/** The cron commands read and fire through the database: the record of the jobs lives there. */
async function withDatabase<T>(flags: ConnectionFlags, ctx: CommandContext, run: (client: DatabaseClient) => Promise<T>): Promise<T> {
  if (flags.url !== undefined) throw new QueueError('INVALID_CONFIG', 'the cron commands work on the database: give DATABASE_URL (or the data directory), not --url');
  const client: OperatorClient = await openClient(flags, ctx.io.env);
  try {
    const { DatabaseClient } = await import('../database-client.js'); // loaded by openClient already
    if (!(client instanceof DatabaseClient)) throw new QueueError('INVALID_CONFIG', 'the cron commands work on the database: give DATABASE_URL, not TASKQUEUE_URL');
    return await run(client);
  } finally {
    await client.close();
  }
}

/** One job as the lines of `cron list`. */
export function cronListLines(job: CronJobStatus): string[] {
  const last =
    job.lastFiredAt === null
      ? 'never fired'
      : `${job.lastFiredAt.toISOString()} ${job.lastTask ?? ''} ${job.lastOutcome ?? ''}${job.lastError === null ? '' : `: ${job.lastError}`}`;
  const retired = job.retiredAt === null ? '' : ` (retired ${job.retiredAt.toISOString()}: not in the cron file of the last server started)`;
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
      .description('Each cron job the servers recorded: schedule, timezone, url and queue, the next three firings, and the last firing with its outcome.')
      .option('--json', 'one JSON object per job'),
  ).action(async (flags: ConnectionFlags & { json?: boolean }) => {
    const jobs = await withDatabase(flags, ctx, (client) => client.cronJobs());
    if (jobs.length === 0) ctx.io.out.write('no cron jobs recorded (a server records them when it starts with a cron.yaml)\n');
    for (const job of jobs) {
      if (flags.json === true) {
        const { job: _definition, ...shown } = job;
        ctx.io.out.write(`${JSON.stringify(shown)}\n`);
      } else ctx.io.out.write(`${cronListLines(job).join('\n')}\n`);
    }
  });
  withConnectionOptions(
    cron
      .command('run')
      .summary('fire a job now, once')
      .description('Adds one firing of the job now, outside its schedule (task cron-<job>-run-<time>); the schedule goes on as before.')
      .argument('<job>', 'the job name (see cron list)'),
  ).action(async (name: string, flags: ConnectionFlags) => {
    const firing = await withDatabase(flags, ctx, (client) => client.runCronJob(name));
    ctx.io.out.write(`${firing.job}: task ${firing.task} ${firing.outcome}\n`);
    if (firing.outcome === 'failed') ctx.exitCode = 1;
  });
}
