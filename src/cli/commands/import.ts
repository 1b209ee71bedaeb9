import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { IMPORT_BATCH, IMPORT_BATCH_BYTES, type ExportLine } from '../operator-client.js';
import { withClient } from '../open-client.js';
import { queueName } from '../option-parsers.js';
import { parseExportLine } from '../../core/task-export.js';
import { ProgressBar } from '../progress-bar.js';
import { readJsonLines } from '../read-json-lines.js';

/** Registers `taskqueue import QUEUE`. */
export function registerImport(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('import')
      .summary('add tasks from JSON lines (an export)')
      .description(
        'Adds the tasks of an export (JSON lines from standard input or --file) to the queue, 100 per ' +
          'statement, all or nothing per 100, under their names and ETAs (a push task with its url, method, headers, deadline and retry options); retry counts start at 0. ' +
          'On an error it stops and says how many lines went in.',
      )
      .argument('<queue>', 'the queue', queueName)
      .option('--file <file>', 'read from this file instead of standard input'),
  ).action(async (queue: string, flags: ConnectionFlags & { file?: string }) => {
    const total = flags.file === undefined ? null : (await stat(flags.file)).size;
    const source = flags.file === undefined ? ctx.io.stdin : createReadStream(flags.file);
    let imported = 0;
    let lastLine = 0;
    await withClient(flags, ctx.io.env, async (client) => {
      const bar = new ProgressBar(ctx.io.err, `importing into ${queue}`, total);
      let batch: ExportLine[] = [];
      let batchBytes = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        try {
          imported += await client.importTasks(queue, batch);
        } catch (error) {
          bar.finish();
          const why = error instanceof Error ? error.message : String(error);
          throw new Error(`${why} (in lines up to ${lastLine}; ${imported} task(s) were imported before them)`, {
            cause: error,
          });
        }
        batch = [];
        batchBytes = 0;
      };
      try {
        for await (const { value, line, bytesRead } of readJsonLines(source as AsyncIterable<Uint8Array | string>)) {
          const task = parseExportLine(value, line);
          const size =
            task.payloadBase64.length +
            task.name.length +
            (task.tag?.length ?? 0) +
            (task.push ? JSON.stringify(task.push).length : 0) +
            64;
          if (batch.length === IMPORT_BATCH || batchBytes + size > IMPORT_BATCH_BYTES) await flush();
          lastLine = line;
          batch.push(task);
          batchBytes += size;
          bar.update(bytesRead, `${imported} task(s)`);
        }
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('line ')) {
          bar.finish();
          throw new Error(`${error.message} (${imported} task(s) were imported before it)`);
        }
        throw error;
      }
      await flush();
      bar.finish();
    });
    ctx.io.err.write(`imported ${imported} task(s) into ${queue}\n`);
  });
}
