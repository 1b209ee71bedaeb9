import { InvalidArgumentError, type Command } from 'commander';
import { LIMITS } from '../../core/limits.js';
import { writeJsonLine, type CommandContext } from '../command-context.js';
import { withConnectionOptions, type ConnectionFlags } from '../connection-options.js';
import { withClient } from '../open-client.js';
import { queueName, wholeNumber } from '../option-parsers.js';
import { readPayload } from '../read-payload.js';

interface AddFlags extends ConnectionFlags {
  file?: string;
  tag?: string;
  name?: string;
  countdown?: number;
  taskUrl?: string;
  method?: string;
  header?: string[];
}

/** Registers `taskqueue add QUEUE [PAYLOAD]`. */
export function registerAdd(program: Command, ctx: CommandContext): void {
  withConnectionOptions(
    program
      .command('add')
      .summary('add a task')
      .description(
        'Adds one task and prints it as a JSON line. The payload is the argument, else --file, else standard input.',
      )
      .argument('<queue>', 'the queue', queueName)
      .argument('[payload]', 'the payload, as UTF-8 text')
      .option('--file <file>', 'read the payload from this file (bytes as they are)')
      .option('--tag <tag>', 'the task tag')
      .option('--name <name>', 'the task name (default: generated)')
      .option(
        '--countdown <seconds>',
        'seconds until the task may be leased',
        wholeNumber(0, LIMITS.maxEtaAheadMs / 1000),
      )
      // --url is taken (the server to talk to): the task's own URL is --task-url.
      .option('--task-url <path>', "push queues: path the task is delivered to, relative to the queue's target URL")
      .option('--method <method>', 'push queues: HTTP method (POST, GET, PUT, DELETE, HEAD, PATCH)')
      .option('--header <header>', "push queues: a request header 'Name: value' (repeatable)", collectHeader, []),
  ).action(async (queue: string, payloadArgument: string | undefined, flags: AddFlags) => {
    const payload = await readPayload(ctx.io, payloadArgument, flags.file);
    const task = await withClient(flags, ctx.io.env, (client) =>
      client.add(queue, {
        payload,
        ...(flags.name === undefined ? {} : { name: flags.name }),
        ...(flags.tag === undefined ? {} : { tag: flags.tag }),
        ...(flags.countdown === undefined ? {} : { countdownSeconds: flags.countdown }),
        ...(flags.taskUrl === undefined ? {} : { url: flags.taskUrl }),
        ...(flags.method === undefined ? {} : { method: flags.method.toUpperCase() }),
        ...(flags.header === undefined || flags.header.length === 0 ? {} : { headers: flags.header.map(splitHeader) }),
      }),
    );
    writeJsonLine(ctx.io, task);
  });
}

function collectHeader(value: string, previous: string[]): string[] {
  if (!/^[^:\s]+:/.test(value))
    throw new InvalidArgumentError(`a header is 'Name: value', got ${JSON.stringify(value)}`);
  return [...previous, value];
}

function splitHeader(header: string): [string, string] {
  const colon = header.indexOf(':');
  return [header.slice(0, colon).trim(), header.slice(colon + 1).trim()];
}
