import { Hono } from 'hono';
import type { AccessControl } from '../../src/auth/access-control.js';
import { createAccessControl } from '../../src/auth/create-access-control.js';
import { mountConsole, type MountedConsole } from '../../src/console/mount-console.js';
import type { QueueConfig } from '../../src/core/queue-config.js';
import { createApp } from '../../src/http/create-app.js';
import { PgAuditLog } from '../../src/store/audit-log.js';
import type { PgTaskStore } from '../../src/store/pg-task-store.js';
import { createTestTokenIssuer, testAuthSettings, type TestTokenIssuer } from '../auth/test-token-issuer.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { openTestService, type TestEngine, type TestService } from '../helpers/engines.js';

export const ADMIN = 'admin@example.com';
export const READER = 'reader@example.com';

/** A service with the console mounted on its app, and tokens for an administrator and an ACL reader of `emails`. */
export interface ConsoleHarness {
  readonly t: TestService;
  readonly app: Hono;
  readonly console: MountedConsole;
  readonly audit: PgAuditLog;
  readonly issuer: TestTokenIssuer | null;
  close(): Promise<void>;
}

/** The default queues: `jobs` (the reader is its ACL user), `emails` and `reports` (the reader has no rights on them). */
export function consoleQueues(): QueueConfig[] {
  return [
    pullQueue('jobs', { acl: { userEmails: [READER], writerEmails: [] }, maxLeases: 2 }),
    pullQueue('emails'),
    pullQueue('reports', { maxLeases: 1 }),
  ];
}

export async function openConsoleHarness(
  engine: TestEngine,
  options: { auth?: boolean; queues?: QueueConfig[]; sampleIntervalSeconds?: number; refreshSeconds?: number } = {},
): Promise<ConsoleHarness> {
  const t = await openTestService(engine, serviceConfig(options.queues ?? consoleQueues()));
  const issuer = options.auth === false ? null : await createTestTokenIssuer();
  const accessControl: AccessControl | undefined =
    issuer === null ? undefined : createAccessControl(testAuthSettings(issuer, { admins: [ADMIN] }));
  const store = t.service.store as PgTaskStore;
  const audit = new PgAuditLog({ db: store.database.db, schema: t.schema });
  const app = createApp({ service: t.service, ...(accessControl ? { accessControl } : {}) });
  const mounted = mountConsole(app, {
    service: t.service,
    ...(accessControl ? { accessControl } : {}),
    auditLog: audit,
    ...(options.sampleIntervalSeconds === undefined ? {} : { sampleIntervalSeconds: options.sampleIntervalSeconds }),
    ...(options.refreshSeconds === undefined ? {} : { refreshSeconds: options.refreshSeconds }),
  });
  return {
    t,
    app,
    console: mounted,
    audit,
    issuer,
    close: async () => {
      await mounted.close();
      await t.close();
    },
  };
}
