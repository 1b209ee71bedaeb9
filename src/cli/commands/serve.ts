import type { Command } from 'commander';
import type { Environment, ServiceSettings } from '../../config/service-settings.js';
import { useBaselineWasmCompiler } from '../wasm-code-tier.js';
import type { CommandContext } from '../command-context.js';
import { settingsFromFlags, withDatabaseOptions, type ServerFlags } from '../connection-options.js';

/**
 * `taskqueue serve`: logs to stdout, runs until SIGINT or SIGTERM, then
 * shuts down gracefully (src/run-server.ts).
 */
export async function serveCommand(settings: ServiceSettings, env: Environment): Promise<number> {
  // The embedded engine's memory: see cli/wasm-code-tier.ts.
  if (settings.databaseUrl === null) useBaselineWasmCompiler();
  // Loaded when serving, not when the CLI starts: every other command paid
  // for the server's modules (the HTTP app, the console, the dispatcher).
  const { runServer } = await import('../../run-server.js');
  return runServer(settings, env);
}

/** Registers `taskqueue serve`. */
export function registerServe(program: Command, ctx: CommandContext): void {
  withDatabaseOptions(
    program
      .command('serve')
      .summary('run the service: REST API, /healthz, /readyz, /metrics')
      .description(
        'Runs the service until SIGINT or SIGTERM: applies migrations, writes the queue configuration ' +
          'to the database and serves the REST API. Each flag overrides its environment variable.',
      ),
  )
    .option(
      '--config <file>',
      "queue.xml or queue.yaml, whose queues the server writes (default $TASKQUEUE_CONFIG, else ./queue.xml; with none, the database's queues)",
    )
    .option('--project <id>', 'project id of the REST paths (default $TASKQUEUE_PROJECT, else local)')
    .option('--port <n>', 'port to listen on (default $PORT, else 8080)')
    .option('--host <addr>', 'interface to listen on (default $HOST, else 127.0.0.1; 0.0.0.0 for every interface)')
    .action(async (flags: ServerFlags) => {
      ctx.exitCode = await serveCommand(settingsFromFlags(ctx.io.env, flags), ctx.io.env);
    });
}
