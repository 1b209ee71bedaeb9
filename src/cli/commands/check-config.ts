import { basename } from 'node:path';
import type { Command } from 'commander';
import type { CronConfig } from '../../core/cron/cron-job.js';
import { routeOfTarget, withPushBaseUrl, type ServiceConfig, type TargetRoutes } from '../../core/queue-config.js';
import { queueFacts } from '../../core/queue-facts.js';
import { withCronQueue } from '../../config/cron-queue.js';
import { loadConfigFile } from '../../config/load-config.js';
import { findCronFile, loadCronFile } from '../../config/load-cron-config.js';
import { settingsFromEnvironment, type ServiceSettings } from '../../config/service-settings.js';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../usage-error.js';

/** A file named cron.yaml, cron.yml or cron.xml is a cron file, as App Engine's tools tell them apart. */
const CRON_FILE_NAME = /^cron\.(ya?ml|xml)$/i;

/**
 * `taskqueue check-config [FILE] [--cron FILE]`: validates and summarises
 * the queue file (FILE, else $TASKQUEUE_CONFIG) and the cron file (--cron,
 * else $TASKQUEUE_CRON, else ./cron.yaml or ./cron.xml when present).
 * A FILE named cron.yaml / cron.xml is checked as a cron file. Errors name
 * the file, queue or job, and element.
 */
export async function checkConfigCommand(
  files: readonly string[],
  settings: ServiceSettings,
  out: NodeJS.WritableStream,
  options: { readonly cron?: string } = {},
): Promise<number> {
  if (files.length > 1) throw new UsageError('give at most one queue file: taskqueue check-config queue.xml');
  const given = files[0];
  const givenIsCron = given !== undefined && CRON_FILE_NAME.test(basename(given));
  if (givenIsCron && options.cron !== undefined) {
    throw new UsageError(`${given} is a cron file, and so is --cron ${options.cron}: give one`);
  }
  const cronFile = givenIsCron ? given : await findCronFile(options.cron ?? settings.cronPath);
  const queueFile = givenIsCron ? null : (given ?? settings.configPath);
  if (queueFile === null && cronFile === null) {
    throw new Error('give a file: taskqueue check-config queue.xml (or set TASKQUEUE_CONFIG), or --cron cron.yaml');
  }
  const queues = queueFile === null ? null : await checkQueueFile(queueFile, settings, out);
  if (cronFile !== null) {
    const cron = await loadCronFile(cronFile);
    // As start-up does: every job's queue must be a push queue of the queue
    // file (the built-in cron queue added when a job needs it). Without a
    // queue file there is nothing to check the queues against.
    if (queues !== null) withCronQueue(queues, cron);
    summariseCron(cron, out, queues !== null, settings.targetUrls);
  }
  return 0;
}

async function checkQueueFile(
  file: string,
  settings: ServiceSettings,
  out: NodeJS.WritableStream,
): Promise<ServiceConfig> {
  const config = await loadConfigFile(file, { maxActiveQueues: settings.maxActiveQueues });
  out.write(`${file}: OK, ${config.queues.length} queue(s)\n`);
  // Each queue in its own mode's terms, with its base URL as this environment resolves it (TASKQUEUE_PUSH_BASE_URL, TASKQUEUE_TARGET_URLS).
  const resolved = withPushBaseUrl(config, settings.pushBaseUrl, settings.targetUrls);
  for (const queue of resolved.queues)
    out.write(`  ${queue.name}: ${queueFacts(queue, settings.targetUrls).join(', ')}\n`);
  if (config.totalStorageLimitBytes !== null) out.write(`  total storage limit: ${config.totalStorageLimitBytes} B\n`);
  return config;
}

function summariseCron(
  config: CronConfig,
  out: NodeJS.WritableStream,
  queuesChecked: boolean,
  routes: TargetRoutes,
): void {
  out.write(`${config.source}: OK, ${config.jobs.length} cron job(s)\n`);
  for (const job of config.jobs) {
    const facts = [
      `${job.url} ${JSON.stringify(job.schedule)}`,
      job.timezone === 'UTC' ? null : job.timezone,
      job.queue === null ? null : `queue ${job.queue}`,
      job.target === null ? null : targetFact(job.target, routes),
      job.retry.jobRetryLimit === null ? null : `${job.retry.jobRetryLimit} retries`,
    ].filter((fact) => fact !== null);
    out.write(`  ${job.name}: ${facts.join(', ')}\n`);
  }
  // Said plainly, so that a file that checks out alone is not taken for jobs whose queues exist.
  if (config.jobs.length > 0 && !queuesChecked)
    out.write('  (queues not checked: give the queue file too, or set TASKQUEUE_CONFIG)\n');
}

/** Where a cron job's target goes: its route, or its queue's URL when it has none (said, not hidden). */
function targetFact(target: string, routes: TargetRoutes): string {
  const route = routeOfTarget(target, routes);
  return route === null
    ? `target ${target} has no route in TASKQUEUE_TARGET_URLS: to its queue's URL`
    : `target ${target} to ${route}`;
}

/** Registers `taskqueue check-config [FILE] [--cron FILE]`. */
export function registerCheckConfig(program: Command, ctx: CommandContext): void {
  program
    .command('check-config')
    .summary('validate a queue.xml / queue.yaml and a cron.yaml / cron.xml')
    .description(
      'Validates a queue.xml or queue.yaml file and summarises its queues, then the cron file (--cron, else $TASKQUEUE_CRON, else ./cron.yaml or ./cron.xml when present) and its jobs; errors name the file, queue or job, and element. A FILE named cron.yaml or cron.xml is checked as a cron file.',
    )
    .argument('[file]', 'the queue file (default $TASKQUEUE_CONFIG)')
    .option('--cron <file>', 'the cron file (default $TASKQUEUE_CRON, else ./cron.yaml, else ./cron.xml)')
    .action(async (file: string | undefined, flags: { cron?: string }) => {
      ctx.exitCode = await checkConfigCommand(
        file === undefined ? [] : [file],
        settingsFromEnvironment(ctx.io.env),
        ctx.io.out as NodeJS.WritableStream,
        flags.cron === undefined ? {} : { cron: flags.cron },
      );
    });
}
