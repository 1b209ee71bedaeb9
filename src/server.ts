import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { resolve } from 'node:path';
import { authSettingsFromEnvironment } from './auth/auth-settings.js';
import { createAccessControl } from './auth/create-access-control.js';
import { startLocalTokenServer, type LocalTokenServer } from './auth/local-token-server.js';
import type { Environment, ServiceSettings } from './config/service-settings.js';
import { mountConsole, type MountedConsole } from './console/mount-console.js';
import { createApp } from './http/create-app.js';
import { openTaskQueue, type OpenTaskQueue } from './open-task-queue.js';

/** A running server: the HTTP listener and the service behind it. */
export interface RunningServer {
  readonly service: OpenTaskQueue;
  readonly server: Server;
  /** The URL it listens on. */
  readonly url: string;
  close(): Promise<void>;
}

export interface StartServerOptions {
  readonly settings: ServiceSettings;
  readonly env: Environment;
  /** Where start-up messages go (default: stderr). */
  readonly log?: (line: string) => void;
}

/**
 * Opens the service (migrations, configuration) and serves the REST API and
 * /healthz on settings.host:settings.port.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { settings } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Read before anything opens, so a bad auth setting fails fast.
  const authSettings = authSettingsFromEnvironment(options.env);
  const service = await openTaskQueue({
    databaseUrl: settings.databaseUrl,
    ...(settings.configPath === null ? {} : { config: settings.configPath }),
    project: settings.project,
    dataDir: settings.dataDir,
    schema: settings.schema,
    poolSize: settings.poolSize,
    tombstoneDays: settings.tombstoneDays,
    deadLetterDays: settings.deadLetterDays,
    env: options.env,
  });
  let tokenServer: LocalTokenServer | null = null;
  let webConsole: MountedConsole | null = null;
  try {
    const accessControl = createAccessControl(authSettings, {
      store: service.authStore,
      configAdmins: service.config.adminEmails,
      warn: log,
    });
    // The embedded engine admits one process: `taskqueue token` asks this
    // server (on loopback, with a secret in a 0600 file) instead.
    if (accessControl.localIssuer && service.engine === 'pglite' && settings.dataDir !== ':memory:') {
      tokenServer = await startLocalTokenServer({ dataDir: resolve(settings.dataDir), minter: accessControl.localIssuer });
    }
    const app = createApp({ service, accessControl, adminEmails: [...authSettings.admins, ...service.config.adminEmails] });
    // The web console at /console (TASKQUEUE_CONSOLE=off leaves it out).
    webConsole = settings.console
      ? mountConsole(app, { service, accessControl, auditLog: service.auditLog })
      : null;
    const server = await listen(app.fetch, settings.port, settings.host);
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : settings.port;
    const shownHost = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
    const url = `http://${shownHost}:${port}`;
    const engine =
      service.engine === 'pglite' ? `embedded PGlite in ${settings.dataDir}` : `PostgreSQL (schema ${service.schema})`;
    log(`taskqueue listening on ${url} - engine: ${engine}; config: ${service.config.source}; project: ${service.project}`);
    return {
      service,
      server,
      url,
      close: async () => {
        await webConsole?.close();
        await tokenServer?.close();
        await new Promise<void>((done) => server.close(() => done()));
        await service.close();
      },
    };
  } catch (error) {
    await tokenServer?.close().catch(() => {});
    await webConsole?.close();
    await service.close();
    throw error;
  }
}

function listen(fetch: (request: Request) => Response | Promise<Response>, port: number, hostname: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port, hostname }) as Server;
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}
