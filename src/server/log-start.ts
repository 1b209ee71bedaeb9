import type { ServiceAccessControl } from '../auth/create-access-control.js';
import type { ServiceSettings } from '../config/service-settings.js';
import type { Logger } from '../core/logger.js';
import type { OpenTaskQueue } from '../open-task-queue.js';

/** The start line: where it listens, on what, whether anyone can administer it, and how to get a token. */
export function logStart(
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
  const engine =
    service.engine === 'pglite' ? `embedded PGlite in ${settings.dataDir}` : `PostgreSQL (schema ${service.schema})`;
  const adminText =
    admins.length > 0
      ? `administrators: ${admins.join(', ')}`
      : 'no administrator configured (set TASKQUEUE_ADMINS or <admin-email> in the queue config)';
  let tokenText: string;
  if (!facts.authEnabled) tokenText = 'authentication is off: requests need no token';
  else if (facts.accessControl.localIssuer)
    tokenText = 'get a token: taskqueue token --email YOU@EXAMPLE.COM [--scope S]';
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
