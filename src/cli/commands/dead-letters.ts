import type { Command } from 'commander';
import { writeJsonLine, type CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { formatTable } from '../format-table.js';
import type { DeadLetterRecord } from '../operator-client.js';
import { withClient } from '../open-client.js';
import { queueName } from '../option-parsers.js';

/** Registers `taskqueue dead-letters QUEUE`. */
export function registerDeadLetters(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('dead-letters')
      .summary('list the tasks the retry limit dropped')
      .description(
        'Lists the dead letters of the queue, oldest death first: tasks the retry limit took out, kept with their payload.',
      )
      .argument('<queue>', 'the queue', queueName)
      .option('--json', 'one JSON object per dead letter and line (with payloadBase64), instead of a table'),
  ).action(async (queue: string, flags: ConnectionFlags & { json?: boolean }) => {
    const rows: DeadLetterRecord[] = [];
    await withClient(flags, ctx.io.env, async (client) => {
      for await (const page of client.deadLetters(queue)) {
        // JSON lines stream out page by page; the table needs every row for its widths.
        if (flags.json) for (const letter of page) writeJsonLine(ctx.io, letter);
        else rows.push(...page);
      }
    });
    if (!flags.json) {
      ctx.io.out.write(
        formatTable(
          // Leases of a pull task, delivery attempts of a push task: attempts either way.
          ['NAME', 'TAG', 'ATTEMPTS', 'DIED', 'BYTES', 'LAST ERROR'],
          rows.map((letter) => [
            letter.name,
            letter.tag ?? '-',
            letter.retryCount,
            new Date(Math.floor(letter.diedUsec / 1000)).toISOString(),
            Buffer.byteLength(letter.payloadBase64, 'base64'),
            shortError(letter.lastError),
          ]),
        ),
      );
    }
  });
}

/** A last error on one table line: its first line, at most 60 characters ("-" for none). */
function shortError(error: string | null): string {
  if (error === null) return '-';
  const line = error.split('\n', 1)[0]!;
  return line.length <= 60 ? line : `${line.slice(0, 59)}…`;
}
