import type { Command } from 'commander';
import { writeJsonLine, type CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { formatTable } from '../format-table.js';
import { withClient } from '../open-client.js';
import { queueName } from '../option-parsers.js';
import { age, pushRate, tokens } from './queues.js';

/** Registers `taskqueue stats QUEUE`. */
export function registerStats(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('stats')
      .summary("one queue's figures")
      .description(
        "Shows one queue's state, tasks by state, oldest available task, leases in the last minute and hour, dead letters, storage and limits; for a push queue also its rate, bucket size, tokens now, concurrency cap, requests in flight, target URL, and a 503 slow-down or Retry-After hold while one lasts.",
      )
      .argument('<queue>', 'the queue', queueName)
      .option('--json', 'one JSON object instead of a table'),
  ).action(async (queue: string, flags: ConnectionFlags & { json?: boolean }) => {
    const stats = await withClient(flags, ctx.io.env, (client) => client.stats(queue));
    if (flags.json) {
      writeJsonLine(ctx.io, stats);
    } else {
      const rows: [string, string | number][] = [
        ['queue', stats.name],
        ['mode', stats.mode],
        ['state', stats.paused ? 'paused' : 'running'],
        ['available tasks', stats.availableTasks],
        ['leased tasks', stats.leasedTasks],
        ['delayed tasks', stats.delayedTasks],
        ['oldest available', age(stats)],
        ['leased last minute', stats.leasedLastMinute],
        ['leased last hour', stats.leasedLastHour],
        ['dead letters', stats.deadLetters],
        ['storage bytes', stats.storageBytes],
        ['storage limit', stats.storageLimitBytes ?? 'none'],
        ['retry limit', stats.retryLimit ?? 'none'],
        [
          'lease rate',
          stats.leaseRate === null ? 'unlimited' : `${stats.leaseRate.calls}/${stats.leaseRate.windowSeconds}s`,
        ],
      ];
      const push = stats.push;
      if (push) {
        rows.push(
          ['push rate', pushRate(push.ratePerSecond)],
          ['bucket size', push.bucketSize],
          [
            'tokens now',
            push.tokens === null ? `${push.bucketSize} (full, no claim yet)` : tokens(push.tokens, push.bucketSize),
          ],
          ['max concurrent requests', push.maxConcurrentRequests ?? 'unlimited'],
          ['requests in flight', push.inFlight],
          ['target url', push.targetUrl ?? 'none (set <target-url> or TASKQUEUE_PUSH_BASE_URL)'],
        );
        if (push.heldUntilUsec !== null)
          rows.push(['held (Retry-After) until', new Date(push.heldUntilUsec / 1000).toISOString()]);
        if (push.slowedUntilUsec !== null)
          rows.push(['half rate (503) until', new Date(push.slowedUntilUsec / 1000).toISOString()]);
      }
      ctx.io.out.write(
        formatTable(
          ['FIELD', 'VALUE'],
          rows.map(([k, v]) => [k, String(v)]),
        ),
      );
    }
  });
}
