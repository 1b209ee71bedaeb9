import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { resolve } from 'node:path';
import { authSettingsFromEnvironment } from './auth/auth-settings.js';
import { createAccessControl, type ServiceAccessControl } from './auth/create-access-control.js';
import { startLocalTokenServer, type LocalTokenServer } from './auth/local-token-server.js';
import type { Environment, ServiceSettings } from './config/service-settings.js';
import { mountConsole, type MountedConsole } from './console/mount-console.js';
import { silentLogger, type Logger } from './core/logger.js';
import { createApp } from './http/create-app.js';
import { lingerOnEarlyAnswers } from './http/lingering-close.js';
import type { Readiness } from './http/routes/readiness.js';
import { lineLogger } from './ops/line-logger.js';
import { ServiceMetrics } from './ops/service-metrics.js';
import { openTaskQueue, type OpenTaskQueue } from './open-task-queue.js';

/** A running server: the HTTP listener and the service behind it. */
export interface RunningServer {
  readonly service: OpenTaskQueue;
  readonly server: Server;
  /** A URL that reaches it (loopback when it listens on every interface). */
  readonly url: string;
  /** The address it really listens on (`0.0.0.0:8080`, `[::1]:9000`). */
  readonly address: string;
  /** Shuts down gracefully with the configured grace period (see shutdown). */
  close(): Promise<void>;
  /**
   * Graceful shutdown: stops accepting connections; aborts pending long-poll
   * leases (they answer at once with what they have); marks every further
   * response `Connection: close` and closes idle keep-alive connections;
   * after `graceMs` closes whatever connections remain; then closes the
   * service (pool, data-directory lock). Calls after the first share it.
   */
  shutdown(graceMs?: number): Promise<ShutdownReport>;
}

/** How a shutdown went. */
export interface ShutdownReport {
  /** From the call to the service closed. */
  readonly ms: number;
  /** Connections still open when the grace period ran out (closed by force). */
  readonly forcedConnections: number;
}

export interface StartServerOptions {
  readonly settings: ServiceSettings;
  readonly env: Environment;
  /** Where the server logs (default: `log` when given, else nowhere). */
  readonly logger?: Logger;
  /** Without a logger: receives each log message as a line of text (lineLogger). */
  readonly log?: (line: string) => void;
}

/** While shutting down, how often connections that went idle are closed. */
const IDLE_SWEEP_MS = 50;

/**
 * Opens the service (waiting for the database, migrations, configuration)
 * and serves the REST API, /healthz, /readyz and /metrics on
 * settings.host:settings.port.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { settings } = options;
  const logger = options.logger ?? (options.log ? lineLogger(options.log) : silentLogger);
  // Read before anything opens, so a bad auth setting fails fast.
  const authSettings = authSettingsFromEnvironment(options.env);
  const metrics = settings.metrics === 'off' ? null : new ServiceMetrics(logger);
  const service = await openTaskQueue({
    databaseUrl: settings.databaseUrl,
    ...(settings.configPath === null ? {} : { config: settings.configPath }),
    project: settings.project,
    dataDir: settings.dataDir,
    schema: settings.schema,
    poolSize: settings.poolSize,
    tombstoneDays: settings.tombstoneDays,
    deadLetterDays: settings.deadLetterDays,
    ...(metrics ? { events: metrics.events } : {}),
    databaseWaitSeconds: settings.dbWaitSeconds,
    logger,
    env: options.env,
  });
  let tokenServer: LocalTokenServer | null = null;
  let webConsole: MountedConsole | null = null;
  try {
    metrics?.attach(
      { overview: () => service.overview(), pool: () => service.poolStats() },
      service.queues().map((queue) => queue.name),
    );
    const accessControl = createAccessControl(authSettings, {
      store: service.authStore,
      configAdmins: service.config.adminEmails,
      warn: (message) => logger.warn({}, message),
    });
    // The embedded engine admits one process: `taskqueue token` asks this
    // server (on loopback, with a secret in a 0600 file) instead.
    if (accessControl.localIssuer && service.engine === 'pglite' && settings.dataDir !== ':memory:') {
      tokenServer = await startLocalTokenServer({ dataDir: resolve(settings.dataDir), minter: accessControl.localIssuer });
    }
    const admins = [...new Set([...authSettings.admins, ...service.config.adminEmails])];
    const stopping = new AbortController();
    const readiness = async (): Promise<Readiness> => {
      if (stopping.signal.aborted) return { ready: false, reason: 'stopping', message: 'the server is shutting down' };
      let status: { current: number; latest: number };
      try {
        status = await service.schemaStatus();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { ready: false, reason: 'database', message };
      }
      if (status.current < status.latest) {
        return {
          ready: false,
          reason: 'migrations',
          message: `the schema ${service.schema} is at migration ${status.current}, this server needs ${status.latest}: run taskqueue migrate`,
        };
      }
      return { ready: true };
    };
    const app = createApp({
      service,
      accessControl,
      adminEmails: admins,
      logger,
      ...(metrics
        ? {
            httpObserver: metrics.http,
            metrics: { access: settings.metrics === 'token' ? ('token' as const) : ('on' as const), render: () => metrics.render() },
          }
        : {}),
      readiness,
      shutdown: stopping.signal,
    });
    // The web console at /console (TASKQUEUE_CONSOLE=off leaves it out).
    webConsole = settings.console
      ? mountConsole(app, { service, accessControl, auditLog: service.auditLog, depthHistory: service.depthHistory })
      : null;
    const server = await listen(app.fetch, settings.port, settings.host);
    const connections = new Set<Socket>();
    server.on('connection', (socket: Socket) => {
      connections.add(socket);
      socket.once('close', () => connections.delete(socket));
    });
    const bound = server.address() as AddressInfo;
    const address = bound.family === 'IPv6' ? `[${bound.address}]:${bound.port}` : `${bound.address}:${bound.port}`;
    const shownHost = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
    const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${bound.port}`;
    logStart(logger, { address, url, service, settings, accessControl, admins, authEnabled: authSettings.enabled });
    // The CLI's operator commands come here while this server holds the data directory.
    tokenServer?.announce(url);

    let shuttingDown: Promise<ShutdownReport> | null = null;
    const shutdown = (graceMs = settings.shutdownGraceSeconds * 1000): Promise<ShutdownReport> => {
      shuttingDown ??= (async () => {
        const started = Date.now();
        stopping.abort();
        const allClosed = new Promise<void>((done) => server.close(() => done()));
        server.closeIdleConnections();
        // Connections whose last response went out before the signal (so
        // without `Connection: close`) go idle later: close them as they do.
        const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
        let timer: NodeJS.Timeout | undefined;
        const graceOver = new Promise<'grace over'>((done) => (timer = setTimeout(() => done('grace over'), graceMs)));
        const outcome = await Promise.race([allClosed, graceOver]);
        clearInterval(sweep);
        clearTimeout(timer);
        let forcedConnections = 0;
        if (outcome === 'grace over') {
          forcedConnections = connections.size;
          logger.warn({ connections: forcedConnections, graceSeconds: graceMs / 1000 }, 'grace period over: closing the remaining connections');
          server.closeAllConnections();
          for (const socket of connections) socket.destroy();
          await allClosed;
        }
        await webConsole?.close();
        await tokenServer?.close();
        await service.close();
        return { ms: Date.now() - started, forcedConnections };
      })();
      return shuttingDown;
    };
    return {
      service,
      server,
      url,
      address,
      close: async () => {
        await shutdown();
      },
      shutdown,
    };
  } catch (error) {
    await tokenServer?.close().catch(() => {});
    await webConsole?.close();
    await service.close();
    throw error;
  }
}

/** The start line: where it listens, on what, whether anyone can administer it, and how to get a token. */
function logStart(
  logger: Logger,
  facts: {
    address: string;
    url: string;
    service: OpenTaskQueue;
    settings: ServiceSettings;
    accessControl: ServiceAccessControl;
    admins: readonly string[];
    authEnabled: boolean;
  },
): void {
  const { service, settings, admins } = facts;
  const engine = service.engine === 'pglite' ? `embedded PGlite in ${settings.dataDir}` : `PostgreSQL (schema ${service.schema})`;
  const adminText =
    admins.length > 0
      ? `administrators: ${admins.join(', ')}`
      : 'no administrator configured (set TASKQUEUE_ADMINS or <admin-email> in the queue config)';
  let tokenText: string;
  if (!facts.authEnabled) tokenText = 'authentication is off: requests need no token';
  else if (facts.accessControl.localIssuer) tokenText = 'get a token: taskqueue token --email YOU@EXAMPLE.COM [--scope S]';
  else tokenText = 'tokens come from the configured identity provider (the local issuer is off)';
  logger.info(
    {
      address: facts.address,
      url: facts.url,
      engine: service.engine,
      schema: service.schema,
      config: service.config.source,
      project: service.project,
      administrators: admins.length,
      auth: facts.authEnabled ? 'on' : 'off',
      metrics: settings.metrics,
    },
    `taskqueue listening on ${facts.address} (${facts.url}) - engine: ${engine}; config: ${service.config.source}; project: ${service.project}; ${adminText}; ${tokenText}`,
  );
}

function listen(fetch: (request: Request) => Response | Promise<Response>, port: number, hostname: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    // The lingering close replaces the adapter's clean-up of unread bodies.
    const server = serve({ fetch, port, hostname, autoCleanupIncoming: false }) as Server;
    lingerOnEarlyAnswers(server);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}
