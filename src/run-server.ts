import type { Environment, ServiceSettings } from './config/service-settings.js';
import type { Logger } from './core/logger.js';
import { createLogger } from './ops/create-logger.js';
import { startServer, type RunningServer } from './server.js';

type StopSignal = 'SIGINT' | 'SIGTERM';

/** Exit codes of a server stopped by a second signal: 128 + the signal's number, as shells report it. */
const SIGNAL_EXIT: Readonly<Record<StopSignal, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * `taskqueue serve` (and `npm start`): logs to stdout (pino JSON lines, or
 * pretty when stdout is a terminal), starts the server, and runs until
 * SIGINT or SIGTERM, then shuts down gracefully (see RunningServer.shutdown)
 * and logs "stopped". A signal during start-up stops the server as soon as
 * it is up. A second signal exits at once; the data-directory lock is still
 * released (the kernel drops it with the process, and its exit hook runs).
 * Resolves to the exit code: 0 after a clean stop, 1 when it could not
 * start or the shutdown failed.
 */
export async function runServer(settings: ServiceSettings, env: Environment, logger?: Logger): Promise<number> {
  const log = logger ?? createLogger({ level: settings.logLevel, pretty: process.stdout.isTTY === true });
  let running: RunningServer | null = null;
  let signals = 0;
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => (finish = resolve));

  const stop = (server: RunningServer) => {
    server.shutdown().then(
      (report) => {
        log.info({ ms: report.ms, forcedConnections: report.forcedConnections }, 'stopped');
        finish(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'error while shutting down');
        finish(1);
      },
    );
  };
  const onSignal = (signal: StopSignal) => {
    signals++;
    if (signals > 1) {
      log.warn({ signal }, 'second signal: exiting at once');
      process.exit(SIGNAL_EXIT[signal]);
    }
    log.info(
      { signal, graceSeconds: settings.shutdownGraceSeconds },
      running ? 'shutting down' : 'shutting down once started',
    );
    if (running) stop(running);
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  // An error nothing caught still ends the process as Node decides; it is
  // logged first, with its stack, as a line like every other.
  const onCrash = (error: unknown, origin: string) =>
    log.error({ err: error, origin }, 'unexpected error: the process ends');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  process.on('uncaughtExceptionMonitor', onCrash);
  try {
    try {
      running = await startServer({ settings, env, logger: log });
    } catch (error) {
      log.error({ err: error instanceof Error ? error.message : String(error) }, 'could not start');
      return 1;
    }
    if (signals > 0) stop(running);
    return await done;
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    process.off('uncaughtExceptionMonitor', onCrash);
  }
}
