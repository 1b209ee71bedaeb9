import type { Command } from 'commander';
import { loadConfigFile } from '../../config/load-config.js';
import { settingsFromEnvironment, type ServiceSettings } from '../../config/service-settings.js';
import type { CommandContext } from '../command-context.js';

/** `taskqueue check-config FILE`: validates and summarises; errors name file, queue and element. */
export async function checkConfigCommand(
  files: readonly string[],
  settings: ServiceSettings,
  out: NodeJS.WritableStream,
): Promise<number> {
  const file = files[0] ?? settings.configPath;
  if (!file || files.length > 1) {
    throw new Error('give exactly one file: taskqueue check-config queue.xml');
  }
  const config = await loadConfigFile(file, { maxActiveQueues: settings.maxActiveQueues });
  out.write(`${file}: OK, ${config.queues.length} queue(s)\n`);
  for (const queue of config.queues) {
    const facts = [
      queue.mode,
      queue.maxLeases === null ? null : `max leases ${queue.maxLeases}`,
      queue.storageLimitBytes === null ? null : `storage limit ${queue.storageLimitBytes} B`,
      queue.leaseRate === null ? 'lease rate unlimited' : `lease rate ${queue.leaseRate.calls}/${queue.leaseRate.windowSeconds}s`,
      queue.acl.userEmails.length + queue.acl.writerEmails.length > 0
        ? `acl ${queue.acl.userEmails.length} user(s), ${queue.acl.writerEmails.length} writer(s)`
        : null,
    ].filter((fact) => fact !== null);
    out.write(`  ${queue.name}: ${facts.join(', ')}\n`);
  }
  if (config.totalStorageLimitBytes !== null) out.write(`  total storage limit: ${config.totalStorageLimitBytes} B\n`);
  return 0;
}

/** Registers `taskqueue check-config [FILE]`. */
export function registerCheckConfig(program: Command, ctx: CommandContext): void {
  program
    .command('check-config')
    .summary('validate a queue.xml or queue.yaml file')
    .description('Validates a queue.xml or queue.yaml file and summarises its queues; errors name the file, queue and element.')
    .argument('[file]', 'the file (default $TASKQUEUE_CONFIG)')
    .action(async (file: string | undefined) => {
      ctx.exitCode = await checkConfigCommand(file === undefined ? [] : [file], settingsFromEnvironment(ctx.io.env), ctx.io.out as NodeJS.WritableStream);
    });
}
