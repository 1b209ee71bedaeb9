import type { Command } from 'commander';
import { writeJsonLine, type CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { formatTable } from '../format-table.js';
import { withClient } from '../open-client.js';
import { queueName, taskName } from '../option-parsers.js';

/** Registers `taskqueue attempts QUEUE TASK`. */
export function registerAttempts(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('attempts')
      .summary("list a task's last attempts that did not succeed")
      .description(
        "Lists a task's (or dead letter's) last 10 attempts that did not succeed, newest first: when each ended, " +
          'failed or lapsed (a lease that ran out), the HTTP status of a push delivery, and the error with the start ' +
          'of the response body. A success deletes the task, so none is listed.',
      )
      .argument('<queue>', 'the queue', queueName)
      .argument('<task>', 'the task name', taskName)
      .option('--json', 'one JSON object per attempt and line, instead of a table'),
  ).action(async (queue: string, task: string, flags: ConnectionFlags & { json?: boolean }) => {
    const attempts = await withClient(flags, ctx.io.env, (client) => client.attempts(queue, task));
    if (flags.json) {
      for (const attempt of attempts) writeJsonLine(ctx.io, attempt);
      return;
    }
    ctx.io.out.write(
      formatTable(
        ['ATTEMPT', 'ENDED', 'OUTCOME', 'STATUS', 'MS', 'ERROR'],
        attempts.map((a) => [
          a.attempt,
          new Date(Math.floor(a.endedUsec / 1000)).toISOString(),
          a.outcome,
          a.httpStatus ?? '-',
          a.durationMs ?? '-',
          oneLine([a.error, a.responseExcerpt].filter((x): x is string => x !== null).join(': ') || '-'),
        ]),
      ),
    );
  });
}

/** On one table line: newlines flattened, at most 100 characters. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= 100 ? line : `${line.slice(0, 99)}…`;
}
