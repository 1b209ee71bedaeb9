import type { Environment, ServiceSettings } from '../../config/service-settings.js';
import { startServer } from '../../server.js';

/** `taskqueue serve`: runs until SIGINT or SIGTERM, then closes cleanly. */
export async function serveCommand(settings: ServiceSettings, env: Environment, err: NodeJS.WritableStream): Promise<number> {
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
