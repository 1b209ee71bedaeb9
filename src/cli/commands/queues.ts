import type { Command } from 'commander';
import type { QueueOverview } from '../../core/queue-overview.js';
import { writeJsonLine, type CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { formatTable } from '../format-table.js';
import { withClient } from '../open-client.js';

/** Registers `taskqueue queues`: every configured queue at a glance. */
export function registerQueues(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('queues')
      .summary('list the queues with their depth and state')
      .description(
        'Lists every configured queue: mode, paused or not, tasks by state (a push task in flight or waiting to be retried counts as leased), age of the oldest available task, dead letters; push queues also their rate, bucket size, tokens in the bucket now and requests in flight.',
      )
      .option('--json', 'one JSON object per queue and line, instead of a table'),
  ).action(async (flags: ConnectionFlags & { json?: boolean }) => {
    const queues = await withClient(flags, ctx.io.env, (client) => client.queues());
    if (flags.json) {
      for (const queue of queues) writeJsonLine(ctx.io, queue);
    } else {
      ctx.io.out.write(
        formatTable(
          [
            'QUEUE',
            'MODE',
            'STATE',
            'AVAILABLE',
            'LEASED',
            'DELAYED',
            'OLDEST',
            'DEAD',
            'LEASED/H',
            'RATE',
            'BUCKET',
            'TOKENS',
            'IN FLIGHT',
          ],
          queues.map((q) => [
            q.name,
            q.mode,
            q.paused ? 'paused' : 'running',
            q.availableTasks,
            q.leasedTasks,
            q.delayedTasks,
            age(q),
            q.deadLetters,
            q.leasedLastHour,
            q.push ? pushRate(q.push.ratePerSecond) : '-',
            q.push ? q.push.bucketSize : '-',
            q.push ? tokens(q.push.tokens, q.push.bucketSize) : '-',
            q.push ? q.push.inFlight : '-',
          ]),
        ),
      );
    }
  });
}

/** The oldest available task's wait, for people: `-`, `42s`, `3m`, `5h`, `2d`. */
export function age(queue: QueueOverview): string {
  const seconds = queue.oldestAvailableAgeSeconds;
  if (seconds === null) return '-';
  if (seconds < 120) return `${Math.floor(seconds)}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** Whole tokens in a push queue's bucket now (a claim spends whole ones); before the first claim it is full. */
export function tokens(now: number | null, bucketSize: number): number {
  return now === null ? bucketSize : Math.floor(now);
}

/** A push rate for people: `5/s`, `0.5/s`, `0` (nothing dispatched). */
export function pushRate(perSecond: number): string {
  return perSecond === 0 ? '0' : `${Number(perSecond.toPrecision(6))}/s`;
}
