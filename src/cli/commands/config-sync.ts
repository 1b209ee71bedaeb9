import type { Command } from 'commander';
import { withCronQueue } from '../../config/cron-queue.js';
import { resolveConfig, resolveCron } from '../../config/resolve-config.js';
import type { ServiceSettings } from '../../config/service-settings.js';
import { withPushBaseUrl } from '../../core/queue-config.js';
import type { CommandContext } from '../command-context.js';
import {
  commandDatabaseOptions,
  settingsFromFlags,
  withDatabaseOptions,
  type DatabaseFlags,
} from '../connection-options.js';
import { UsageError } from '../usage-error.js';

/**
 * `taskqueue config sync [FILE] [--force]`: makes FILE (else
 * $TASKQUEUE_CONFIG, else ./queue.xml or ./queue.yaml) the queue
 * definitions of the database, as a server starting with it would (its
 * cron file's queue included), without starting one: the deliberate way
 * to deploy a new configuration or, with --force, to go back to an earlier
 * one. Processes serving the old revision log it and go on until restarted.
 */
export async function configSyncCommand(
  file: string | undefined,
  settings: ServiceSettings,
  out: NodeJS.WritableStream,
  options: { readonly force?: boolean } = {},
): Promise<number> {
  const cron = await resolveCron(settings.cronPath);
  const given = await resolveConfig(file ?? settings.configPath, settings);
  if (given.source === 'built-in')
    throw new UsageError('give a file: taskqueue config sync queue.xml (or set TASKQUEUE_CONFIG)');
  const config = withPushBaseUrl(withCronQueue(given, cron), settings.pushBaseUrl, settings.targetUrls);
  // The database modules load only when the command runs: the CLI's start-up loads no driver (test/cli/lazy-start.test.ts).
  const [{ openDatabase }, { migrate }, { settleQueueDefinitions }] = await Promise.all([
    import('../../store/engine/database.js'),
    import('../../store/migrate/migrate.js'),
    import('../../store/definitions/settle-queue-definitions.js'),
  ]);
  const database = await openDatabase(commandDatabaseOptions(settings, 1));
  try {
    await migrate(database.db, settings.schema);
    const settled = await settleQueueDefinitions({ db: database.db, schema: settings.schema }, config, 'own', {
      force: options.force ?? false,
    });
    out.write(
      settled.wrote
        ? `queue definitions written from ${config.source}: revision ${String(settled.revision)}, ${config.queues.length} queue(s)\n`
        : `queue definitions already current: revision ${String(settled.revision)} (${config.source})\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

/** Registers `taskqueue config sync`. */
export function registerConfig(program: Command, ctx: CommandContext): void {
  const config = program.command('config').summary('the queue definitions in the database');
  withDatabaseOptions(
    config
      .command('sync')
      .summary('write a queue.xml / queue.yaml as the queue definitions of the database')
      .description(
        "Writes the queue file (FILE, else $TASKQUEUE_CONFIG, else ./queue.xml or ./queue.yaml) and the cron file's queue as the definitions every process on the database serves, as taskqueue serve does at start. Refused when an earlier revision wrote this configuration and a later one replaced it, unless --force (going back on purpose).",
      )
      .argument('[file]', 'the queue file (default $TASKQUEUE_CONFIG)')
      .option('--force', 'write even if a later revision replaced this configuration'),
  ).action(async (file: string | undefined, flags: DatabaseFlags & { force?: boolean }) => {
    ctx.exitCode = await configSyncCommand(
      file,
      settingsFromFlags(ctx.io.env, flags),
      ctx.io.out as NodeJS.WritableStream,
      { force: flags.force === true },
    );
  });
}
