import type { Environment, ServiceSettings } from '../../config/service-settings.js';
import { runServer } from '../../run-server.js';

/** `taskqueue serve`: runs until SIGINT or SIGTERM, then shuts down gracefully (src/run-server.ts). */
export function serveCommand(settings: ServiceSettings, env: Environment): Promise<number> {
  return runServer(settings, env);
}
