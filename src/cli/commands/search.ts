import type { Command } from 'commander';
import { SEARCH_PAGE_MAX, SEARCH_STATES, type SearchState, type TaskSearch } from '../../core/task-search.js';
import { writeJsonLine, type CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { formatTable } from '../format-table.js';
import { withClient } from '../open-client.js';
import { queueName, wholeNumber } from '../option-parsers.js';
import { UsageError } from '../usage-error.js';

interface SearchFlags extends ConnectionFlags {
  namePrefix?: string;
  tag?: string;
  tagPrefix?: string;
  state?: string;
  error?: string;
  payload?: string;
  limit?: number;
  cursor?: string;
  json?: boolean;
}

/** Registers `taskqueue search QUEUE [--name-prefix P] [--tag T | --tag-prefix P] [--state S] [--error E] [--payload P]`. */
export function registerSearch(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('search')
      .summary("search a queue's tasks by name, tag, state, error or payload text")
      .description(
        "Searches the queue's live tasks: every condition given must hold. A name prefix is searched in name " +
          'order, a tag or tag prefix in tag then ETA order, anything else in ETA order. One run reads at most ' +
          '10,000 tasks of that order: when it stops there (the error and payload texts and states are checked ' +
          'task by task), it says how far it got and the --cursor that goes on. A read: nothing is recorded.',
      )
      .argument('<queue>', 'the queue', queueName)
      .option('--name-prefix <prefix>', 'names that start with this')
      .option('--tag <tag>', 'this tag exactly')
      .option('--tag-prefix <prefix>', 'tags that start with this')
      .option('--state <state>', `one of ${SEARCH_STATES.join(', ')} (failing: has a last error)`)
      .option('--error <text>', 'the last error contains this (any case)')
      .option('--payload <text>', "the payload's first 64 KiB contain this text (UTF-8, case matters)")
      .option('--limit <n>', `tasks to show, 1 to ${SEARCH_PAGE_MAX} (default 50)`, wholeNumber(1, SEARCH_PAGE_MAX))
      .option('--cursor <cursor>', 'go on where the previous run of the same search stopped')
      .option('--json', 'one JSON object per task and line (with payloadBase64), instead of a table'),
  ).action(async (queue: string, flags: SearchFlags) => {
    if (flags.state !== undefined && !SEARCH_STATES.includes(flags.state as SearchState))
      throw new UsageError(`--state is one of ${SEARCH_STATES.join(', ')}`);
    if (flags.tag !== undefined && flags.tagPrefix !== undefined)
      throw new UsageError('give --tag or --tag-prefix, not both');
    const search: TaskSearch = {
      ...(flags.namePrefix === undefined ? {} : { namePrefix: flags.namePrefix }),
      ...(flags.tag === undefined ? {} : { tag: flags.tag }),
      ...(flags.tagPrefix === undefined ? {} : { tagPrefix: flags.tagPrefix }),
      ...(flags.state === undefined ? {} : { state: flags.state as SearchState }),
      ...(flags.error === undefined ? {} : { errorText: flags.error }),
      ...(flags.payload === undefined ? {} : { payloadText: flags.payload }),
      ...(flags.limit === undefined ? {} : { limit: flags.limit }),
      ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
    };
    const found = await withClient(flags, ctx.io.env, (client) => client.search(queue, search));
    if (flags.json) {
      for (const task of found.tasks) writeJsonLine(ctx.io, task);
    } else {
      ctx.io.out.write(
        formatTable(
          ['NAME', 'TAG', 'RETRIES', 'ETA', 'LAST ERROR'],
          found.tasks.map((task) => [
            task.name,
            task.tag ?? '-',
            task.retryCount,
            new Date(Math.floor(task.etaUsec / 1000)).toISOString(),
            shortError(task.lastError),
          ]),
        ),
      );
    }
    // Where to go on, on standard error: standard output stays the tasks alone.
    if (found.bounded) {
      ctx.io.err.write(
        `taskqueue search: searched ${found.scanned} tasks and found ${found.tasks.length}; more remain: --cursor ${found.next}\n`,
      );
    } else if (found.next !== null) {
      ctx.io.err.write(`taskqueue search: more may match: --cursor ${found.next}\n`);
    }
  });
}

/** A last error on one table line: its first line, at most 60 characters ("-" for none). */
function shortError(error: string | null): string {
  if (error === null) return '-';
  const line = error.split('\n', 1)[0]!;
  return line.length <= 60 ? line : `${line.slice(0, 59)}…`;
}
