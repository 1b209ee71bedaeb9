import { Hono } from 'hono';
import type { AccessControl } from '../../src/auth/access-control.js';
import { createAccessControl } from '../../src/auth/create-access-control.js';
import { mountConsole, type MountedConsole } from '../../src/console/mount-console.js';
import type { QueueConfig } from '../../src/core/queue-config.js';
import { createApp } from '../../src/http/create-app.js';
import { PgAuditLog } from '../../src/store/audit-log.js';
import { PgDepthHistory } from '../../src/store/depth-history.js';
import { createTestTokenIssuer, testAuthSettings, type TestTokenIssuer } from '../auth/test-token-issuer.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { openTestService, type TestEngine, type TestService } from '../helpers/engines.js';
import type { OpenTaskQueueOptions } from '../../src/open-task-queue.js';

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
  options: {
    auth?: boolean;
    queues?: QueueConfig[];
    sampleIntervalSeconds?: number;
    refreshSeconds?: number;
    /** More options of openTaskQueue (`dispatch: false` keeps push tasks where a test put them). */
    open?: Partial<OpenTaskQueueOptions>;
  } = {},
): Promise<ConsoleHarness> {
  const t = await openTestService(
    engine,
    serviceConfig(options.queues ?? consoleQueues()),
    options.open ? { open: options.open } : {},
  );
  const issuer = options.auth === false ? null : await createTestTokenIssuer();
  const accessControl: AccessControl | undefined =
    issuer === null ? undefined : createAccessControl(testAuthSettings(issuer, { admins: [ADMIN] }));
  const audit = new PgAuditLog({ db: t.db, schema: t.schema });
  const app = createApp({ service: t.service, ...(accessControl ? { accessControl } : {}) });
  const mounted = mountConsole(app, {
    service: t.service,
    ...(accessControl ? { accessControl } : {}),
    auditLog: audit,
    depthHistory: new PgDepthHistory({ db: t.db, schema: t.schema }),
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

/** A page as a test reads it. */
export interface Page {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** Requests as one browser would send them: the session cookie kept, forms url-encoded, same-origin. */
export function browser(h: ConsoleHarness) {
  let cookie: string | null = null;
  const send = async (
    path: string,
    init: {
      method?: string;
      form?: Record<string, string> | [string, string][];
      headers?: Record<string, string>;
    } = {},
  ): Promise<Page> => {
    const headers: Record<string, string> = {
      host: 'localhost',
      'sec-fetch-site': 'same-origin',
      ...(init.headers ?? {}),
    };
    if (cookie) headers.cookie = cookie;
    const requestInit: RequestInit = { method: init.method ?? (init.form ? 'POST' : 'GET'), headers };
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      requestInit.body = new URLSearchParams(init.form).toString();
    }
    const response = await h.app.request(`http://localhost${path}`, requestInit);
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) {
      const [pair] = setCookie.split(';');
      cookie = pair && !/=$/.test(pair) && !/Max-Age=0/i.test(setCookie) ? pair : null;
    }
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  return {
    send,
    get cookie() {
      return cookie;
    },
    async signIn(email: string, scopes?: readonly string[]) {
      const token = await h.issuer!.mint(email, scopes);
      const page = await send('/console/sign-in', { form: { token } });
      return { page, token };
    },
  };
}

/** The CSRF token a page's forms carry. */
export function csrfOf(page: Page): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page.text);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1]!;
}
