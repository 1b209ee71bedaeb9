import type { Command } from 'commander';
import { LIMITS } from '../../core/limits.js';
import type { CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { execHandler } from '../exec-handler.js';
import { withClient } from '../open-client.js';
import { queueName, wholeNumber } from '../option-parsers.js';

interface WorkFlags extends ConnectionFlags {
  exec: string;
  concurrency: number;
  leaseSeconds: number;
  batchSize?: number;
  tag?: string;
  graceSeconds: number;
}

/** Registers `taskqueue work QUEUE --exec COMMAND`. */
export function registerWork(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('work')
      .summary('run a command for each task of a queue, until SIGTERM')
      .description(
        'Runs the worker runner on the queue: for each task, runs --exec with /bin/sh, the payload on its stdin ' +
          '(and TASKQUEUE_TASK_NAME, TASKQUEUE_TASK_RETRY_COUNT, TASKQUEUE_TASK_TAG, TASKQUEUE_QUEUE in its environment). ' +
          "Exit status 0 deletes the task; any other hands it back after the queue's backoff delay, with the last line " +
          'of stderr as its last error. Leases are renewed while the command runs. SIGTERM or SIGINT drains: no new ' +
          'tasks, running commands get --grace-seconds to finish, then SIGTERM, and their tasks are released; exit 0. ' +
          'Each command runs in a process group of its own, signalled whole, and dies with the runner (even on kill -9).',
      )
      .argument('<queue>', 'the queue', queueName)
      .requiredOption('--exec <command>', 'the command to run for each task (a /bin/sh command line)')
      .option('--concurrency <n>', 'commands running at once', wholeNumber(1, 1000), 1)
      .option(
        '--lease-seconds <seconds>',
        'lease length, renewed while a command runs',
        wholeNumber(1, LIMITS.maxLeaseMs / 1000),
        60,
      )
      .option('--batch-size <n>', 'tasks leased per call (default: --concurrency)', wholeNumber(1, 1000))
      .option('--tag <tag>', 'only tasks with this tag')
      .option(
        '--grace-seconds <seconds>',
        'on SIGTERM, how long running commands may finish',
        wholeNumber(0, 86_400),
        30,
      ),
  ).action(async (queue: string, flags: WorkFlags) => {
    await withClient(flags, ctx.io.env, async (client) => {
      const worker = client.work(queue, execHandler(flags.exec, queue, ctx.io), {
        concurrency: flags.concurrency,
        leaseSeconds: flags.leaseSeconds,
        ...(flags.batchSize === undefined ? {} : { batchSize: flags.batchSize }),
        ...(flags.tag === undefined ? {} : { tag: flags.tag }),
        gracePeriodMs: flags.graceSeconds * 1000,
      });
      worker.on('failed', (task, error) => {
        ctx.io.err.write(
          `taskqueue work: task ${task.name} failed: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      });
      await new Promise<void>((resolve) => {
        const drain = () => {
          process.off('SIGTERM', drain);
          process.off('SIGINT', drain);
          ctx.io.err.write('taskqueue work: draining (no new tasks; running commands may finish)\n');
          void worker.stop().then(resolve);
        };
        process.on('SIGTERM', drain);
        process.on('SIGINT', drain);
      });
    });
  });
}
