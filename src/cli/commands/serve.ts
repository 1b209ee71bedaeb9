import type { Command } from 'commander';
import type { Environment, ServiceSettings } from '../../config/service-settings.js';
import { startServer } from '../../server.js';
import { useBaselineWasmCompiler } from '../../store/wasm-code-tier.js';
import type { CommandContext } from '../command-context.js';
import { settingsFromFlags, withDatabaseOptions, type ServerFlags } from '../connection-options.js';

/** `taskqueue serve`: runs until SIGINT or SIGTERM, then closes cleanly. */
export async function serveCommand(settings: ServiceSettings, env: Environment, err: NodeJS.WritableStream): Promise<number> {
  // The embedded engine's memory: see store/wasm-code-tier.ts.
  if (settings.databaseUrl === null) useBaselineWasmCompiler();
  const running = await startServer({ settings, env, log: (line) => err.write(`${line}\n`) });
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      err.write(`taskqueue: ${signal} received, shutting down\n`);
      running.close().then(
        () => resolve(0),
        (error: unknown) => {
          err.write(`taskqueue: error while shutting down: ${String(error)}\n`);
          resolve(1);
        },
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

/** Registers `taskqueue serve`. */
export function registerServe(program: Command, ctx: CommandContext): void {
  withDatabaseOptions(program.command('serve').summary('run the service: REST API, /healthz').description(
    'Runs the service until SIGINT or SIGTERM: applies migrations, writes the queue configuration ' +
      'to the database and serves the REST API. Each flag overrides its environment variable.',
  ))
    .option('--config <file>', 'queue.xml or queue.yaml (default $TASKQUEUE_CONFIG, else ./queue.xml, else a built-in sample)')
    .option('--project <id>', 'project id of the REST paths (default $TASKQUEUE_PROJECT, else local)')
    .option('--port <n>', 'port to listen on (default $PORT, else 8080)')
    .option('--host <addr>', 'interface to listen on (default $HOST, else 0.0.0.0)')
    .action(async (flags: ServerFlags) => {
      ctx.exitCode = await serveCommand(settingsFromFlags(ctx.io.env, flags), ctx.io.env, ctx.io.err as NodeJS.WritableStream);
    });
}
