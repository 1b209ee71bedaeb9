import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { createRpcHandler } from './appengine/rpc-handler.js';
import { authSettingsFromEnvironment } from './auth/auth-settings.js';
import { createAccessControl } from './auth/create-access-control.js';
import { startLocalTokenServer, type LocalTokenServer } from './auth/local-token-server.js';
import type { Environment, ServiceSettings } from './config/service-settings.js';
import { mountConsole, type MountedConsole } from './console/mount-console.js';
import { silentLogger, type Logger } from './core/logger.js';
import { createApp } from './http/create-app.js';
import { publicJwks } from './auth/push-token-signer.js';
import { lineLogger } from './ops/line-logger.js';
import { ServiceMetrics } from './ops/service-metrics.js';
import { openTaskQueue, type OpenTaskQueue } from './open-task-queue.js';
import { gracefulShutdown, trackConnections, type ShutdownReport } from './server/graceful-shutdown.js';
import { startExtraListener, type ExtraListener } from './server/extra-listener.js';
import { listen } from './server/listen.js';
import { logStart } from './server/log-start.js';
import { readinessCheck } from './server/readiness-check.js';

/** A running server: the HTTP listener and the service behind it. */
export interface RunningServer {
  readonly service: OpenTaskQueue;
  readonly server: Server;
  /** A URL that reaches it (loopback when it listens on every interface). */
  readonly url: string;
  /** The address it really listens on (`0.0.0.0:8080`, `[::1]:9000`). */
  readonly address: string;
  /** App Engine's API protocol (`POST /rpc_http`), when TASKQUEUE_APPENGINE_API_PORT is set: a URL that reaches it. */
  readonly appEngineApiUrl: string | null;
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

export type { ShutdownReport } from './server/graceful-shutdown.js';

export interface StartServerOptions {
  readonly settings: ServiceSettings;
  readonly env: Environment;
  /** Where the server logs (default: `log` when given, else nowhere). */
  readonly logger?: Logger;
  /** Without a logger: receives each log message as a line of text (lineLogger). */
  readonly log?: (line: string) => void;
}

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
    // The server owns the definitions of the configuration it is given or finds (never the built-in sample).
    ownQueues: true,
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
    ...(authSettings.localIssuer ? { pushIssuer: authSettings.localIssuer.issuer } : {}),
    ...(metrics ? { pushEvents: metrics.push, cronEvents: metrics.cron } : {}),
  });
  let tokenServer: LocalTokenServer | null = null;
  let webConsole: MountedConsole | null = null;
  let appEngineApi: ExtraListener | null = null;
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
      tokenServer = await startLocalTokenServer({
        dataDir: resolve(settings.dataDir),
        minter: accessControl.localIssuer,
      });
    }
    const admins = [...new Set([...authSettings.admins, ...service.config.adminEmails])];
    const stopping = new AbortController();
    const app = createApp({
      service,
      accessControl,
      adminEmails: admins,
      logger,
      ...(metrics
        ? {
            httpObserver: metrics.http,
            metrics: {
              access: settings.metrics === 'token' ? ('token' as const) : ('on' as const),
              render: () => metrics.render(),
            },
          }
        : {}),
      readiness: readinessCheck(service, stopping.signal),
      shutdown: stopping.signal,
      cloudTasksLocation: settings.location,
    });
    // The web console at /console (TASKQUEUE_CONSOLE=off leaves it out).
    webConsole = settings.console
      ? mountConsole(app, {
          service,
          accessControl,
          auditLog: service.auditLog,
          depthHistory: service.depthHistory,
          cronJobs: () => service.cronJobs(),
          cron: {
            history: (name, limit) => service.cronHistory(name, limit),
            run: (name, who) => service.runCronJob(name, who),
          },
          triage: settings.triage,
        })
      : null;
    // The local issuer's public keys, for push handlers verifying their Bearer token (docs/push-queues.md).
    app.get('/.well-known/jwks.json', async (c) =>
      c.json(await publicJwks(service.authStore), 200, { 'cache-control': 'public, max-age=300' }),
    );
    // App Engine apps' taskqueue calls (docs/app-engine.md): no credentials, they act as the hosting application.
    appEngineApi =
      settings.appEngineApiPort === null
        ? null
        : await startExtraListener(
            'App Engine API (POST /rpc_http)',
            createRpcHandler({ host: service, logger }),
            settings.appEngineApiPort,
            settings.appEngineApiHost,
            logger,
          );
    const { server, address, url } = await listen(app.fetch, settings.port, settings.host);
    const connections = trackConnections(server);
    logStart(logger, { address, url, service, settings, accessControl, admins, authEnabled: authSettings.enabled });
    // The CLI's operator commands come here while this server holds the data directory.
    tokenServer?.announce(url);

    const mounted = webConsole;
    const tokens = tokenServer;
    const rpc = appEngineApi;
    const shutdown = gracefulShutdown({
      server,
      connections,
      stopping,
      logger,
      drain: async (graceMs) => {
        await Promise.all([service.stopDispatch(graceMs), rpc?.close(graceMs)]);
      },
      closers: [() => mounted?.close(), () => tokens?.close(), () => service.close()],
    });
    return {
      service,
      server,
      url,
      address,
      appEngineApiUrl: rpc?.url ?? null,
      close: async () => {
        await shutdown(settings.shutdownGraceSeconds * 1000);
      },
      shutdown: (graceMs = settings.shutdownGraceSeconds * 1000) => shutdown(graceMs),
    };
  } catch (error) {
    await appEngineApi?.close(0);
    await tokenServer?.close().catch(() => {});
    await webConsole?.close();
    await service.close();
    throw error;
  }
}
