import { open } from 'node:fs/promises';
import type { Command } from 'commander';
import { writeDrained } from '../cli-io.js';
import type { CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { withClient } from '../open-client.js';
import { queueName } from '../option-parsers.js';
import { ProgressBar } from '../progress-bar.js';

/** Registers `taskqueue export QUEUE`. */
export function registerExport(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('export')
      .summary("write a queue's tasks as JSON lines")
      .description(
        'Writes every live task of the queue, in ETA order, as JSON lines {"name","etaUsec","tag","payloadBase64"} ' +
          'to standard output or --file, page by page. `taskqueue import` reads them back.',
      )
      .argument('<queue>', 'the queue', queueName)
      .option('--file <file>', 'write to this file instead of standard output'),
  ).action(async (queue: string, flags: ConnectionFlags & { file?: string }) => {
    // Opened before anything is read: an existing file is refused (never overwritten), and nothing is asked of the database.
    const file = flags.file === undefined ? null : await open(flags.file, 'wx');
    const write = file
      ? async (text: string) => void (await file.write(text))
      : (text: string) => writeDrained(ctx.io.out, text);
    let count = 0;
    try {
      await withClient(flags, ctx.io.env, async (client) => {
        const stats = ctx.io.err.isTTY === true ? await client.stats(queue) : null;
        const bar = new ProgressBar(
          ctx.io.err,
          `exporting ${queue}`,
          stats && stats.availableTasks + stats.leasedTasks + stats.delayedTasks,
        );
        for await (const page of client.exportTasks(queue)) {
          await write(page.map((line) => `${JSON.stringify(line)}\n`).join(''));
          count += page.length;
          bar.update(count, `${count} task(s)`);
        }
        bar.finish();
      });
    } finally {
      await file?.close();
    }
    ctx.io.err.write(`exported ${count} task(s) from ${queue}\n`);
  });
}
