import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AccessControl } from '../../src/auth/access-control.js';
import type { QueueConfig } from '../../src/core/queue-config.js';
import { createApp } from '../../src/http/create-app.js';
import { lingerOnEarlyAnswers } from '../../src/http/lingering-close.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import type { OpenTaskQueueOptions } from '../../src/open-task-queue.js';
import { openTestService, type TestEngine, type TestService } from '../helpers/engines.js';

/** The project of test services (the settings default). */
export const PROJECT = 'local';

/** `/taskqueue/v1beta2/projects/local/taskqueues/{queue}`. */
export function queuePath(queue = 'q', project = PROJECT): string {
  return `/taskqueue/v1beta2/projects/${project}/taskqueues/${queue}`;
}

/**
 * JSON as the tests read it. Loosely typed on purpose: every field a test
 * relies on is checked by an assertion, which is where a wrong shape shows.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

/** A response, read once. */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON (undefined when empty). */
  readonly json: Loose;
}

export async function reply(response: Response): Promise<Reply> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
}

export interface RequestOptions {
  readonly method?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** A service on a fresh schema with queue `q` (and any others), and the app over it. */
export interface Harness {
  readonly t: TestService;
  readonly app: Hono;
  /** `app.request` with a JSON body (objects are JSON-encoded; strings and buffers sent as they are). */
  call(path: string, options?: RequestOptions): Promise<Reply>;
  /** Inserts a task through the REST API; returns its JSON. */
  insert(body: Record<string, unknown>, queue?: string): Promise<Loose>;
  /** Leases through the REST API; returns the items ([] for an answer without `items`, as an empty lease is written). */
  lease(query: string, queue?: string): Promise<Loose[]>;
  close(): Promise<void>;
}

export async function openHarness(
  engine: TestEngine,
  options: {
    queues?: QueueConfig[];
    accessControl?: AccessControl;
    adminEmails?: string[];
    poolSize?: number;
    /** More options of openTaskQueue (a push base URL). */
    open?: Partial<OpenTaskQueueOptions>;
  } = {},
): Promise<Harness> {
  const t = await openTestService(
    engine,
    serviceConfig(options.queues ?? [pullQueue('q')], options.adminEmails ? { adminEmails: options.adminEmails } : {}),
    {
      ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
      ...(options.open === undefined ? {} : { open: options.open }),
    },
  );
  const app = createApp({
    service: t.service,
    ...(options.accessControl ? { accessControl: options.accessControl } : {}),
  });
  const call = async (path: string, request: RequestOptions = {}): Promise<Reply> => {
    const body = request.body;
    const init: RequestInit = { method: request.method ?? 'GET', headers: { ...(request.headers ?? {}) } };
    if (body !== undefined) {
      init.body =
        typeof body === 'string' || body instanceof Uint8Array ? (body as RequestInit['body']) : JSON.stringify(body);
      if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
        (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      }
    }
    return reply(await app.request(path, init));
  };
  return {
    t,
    app,
    call,
    async insert(body, queue = 'q') {
      const r = await call(`${queuePath(queue)}/tasks`, { method: 'POST', body });
      if (r.status !== 200) throw new Error(`insert failed: ${r.status} ${r.text}`);
      return r.json;
    },
    async lease(query, queue = 'q') {
      const r = await call(`${queuePath(queue)}/tasks/lease?${query}`, { method: 'POST' });
      if (r.status !== 200) throw new Error(`lease failed: ${r.status} ${r.text}`);
      return r.json.items ?? [];
    },
    close: () => t.close(),
  };
}

/** Serves an app on 127.0.0.1 on a free port. */
export async function listen(app: Hono): Promise<{ url: string; server: ServerType; close(): Promise<void> }> {
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0, autoCleanupIncoming: false }, () => resolve(s));
    lingerOnEarlyAnswers(s as Server);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** Base64 of a UTF-8 string. */
export function b64(text: string): string {
  return Buffer.from(text).toString('base64');
}

/** The text of a base64 payload. */
export function unb64(text: string): string {
  return Buffer.from(text, 'base64').toString();
}
