import type { Hono } from 'hono';
import { expect } from 'vitest';
import type { AuthSettings } from '../../src/auth/auth-settings.js';
import { createAccessControl, type ServiceAccessControl } from '../../src/auth/create-access-control.js';
import type { ServiceConfig } from '../../src/core/queue-config.js';
import type { TaskQueue } from '../../src/core/task-queue.js';
import type { Task } from '../../src/core/task.js';
import { createApp } from '../../src/http/create-app.js';
import { openTestService, type TestService } from '../helpers/engines.js';
import { reply, type Reply, type RequestOptions } from './harness.js';

/**
 * The real app over the real access control on PostgreSQL: what
 * `src/server.ts` wires, minus the listener. The access control gets the
 * service's database (for the local issuer) and its queue.xml
 * `<admin-email>`s, as in production.
 */
export interface AuthApp {
  readonly t: TestService;
  readonly app: Hono;
  readonly accessControl: ServiceAccessControl;
  /** `app.request`; object bodies are sent as JSON, strings as they are. */
  call(path: string, options?: RequestOptions): Promise<Reply>;
  queue(name: string): TaskQueue;
  close(): Promise<void>;
}

export async function openAuthApp(config: ServiceConfig, settings: AuthSettings): Promise<AuthApp> {
  const t = await openTestService('postgres', config);
  try {
    const accessControl = createAccessControl(settings, {
      store: t.service.authStore,
      configAdmins: t.service.config.adminEmails,
      warn: () => {
        throw new Error('auth must be on in these tests');
      },
    });
    const app = createApp({ service: t.service, accessControl });
    return {
      t,
      app,
      accessControl,
      async call(path, request = {}) {
        const headers: Record<string, string> = { ...(request.headers ?? {}) };
        const init: RequestInit = { method: request.method ?? 'GET', headers };
        if (request.body !== undefined) {
          if (typeof request.body === 'string') {
            init.body = request.body;
          } else {
            init.body = JSON.stringify(request.body);
            headers['content-type'] ??= 'application/json';
          }
        }
        return reply(await app.request(path, init));
      },
      queue: (name) => t.service.getQueue(name),
      close: () => t.close(),
    };
  } catch (error) {
    await t.close();
    throw error;
  }
}

/** `Authorization: Bearer <token>`. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/**
 * Everything a REST call could change, read straight from the schema with
 * full precision (timestamps as text, so a microsecond move shows): live
 * tasks, tombstones, lease history and rate windows, storage counters, and
 * the local issuer's keys.
 */
export interface DbSnapshot {
  readonly tasks: Array<Record<string, unknown>>;
  readonly tombstones: Array<Record<string, unknown>>;
  readonly leaseHistory: Array<Record<string, unknown>>;
  readonly leaseRateWindows: Array<Record<string, unknown>>;
  readonly storage: Array<Record<string, unknown>>;
  readonly signingKeys: Array<Record<string, unknown>>;
}

export async function dbSnapshot(t: TestService): Promise<DbSnapshot> {
  const s = t.schema;
  return {
    tasks: await t.sql(
      `select q.name as queue, t.name, t.eta::text as eta, t.retry_count, t.tag, t.payload, t.enqueued_at::text as enqueued_at
         from ${s}.tasks t join ${s}.queues q on q.id = t.queue_id order by q.name, t.name`,
    ),
    tombstones: await t.sql(
      `select q.name as queue, b.name, b.reason, b.retry_count
         from ${s}.task_tombstones b join ${s}.queues q on q.id = b.queue_id order by q.name, b.name`,
    ),
    leaseHistory: await t.sql(
      `select q.name as queue, h.leased_at::text as leased_at, h.task_count
         from ${s}.lease_history h join ${s}.queues q on q.id = h.queue_id order by 1, 2, 3`,
    ),
    leaseRateWindows: await t.sql(
      `select queue_id, window_start::text, calls from ${s}.lease_rate_windows order by queue_id`,
    ),
    storage: await t.sql(
      `select q.name as queue, sum(st.task_count)::text as task_count, sum(st.byte_count)::text as byte_count
         from ${s}.queue_storage st join ${s}.queues q on q.id = st.queue_id group by q.name order by q.name`,
    ),
    signingKeys: await t.sql(`select kid, retired_at::text from ${s}.auth_signing_keys order by kid`),
  };
}

/** The snapshot's rows of one queue only (what a call on another queue must leave alone). */
export function rowsOf(snapshot: DbSnapshot, queue: string): Omit<DbSnapshot, 'leaseRateWindows' | 'signingKeys'> {
  const of = (rows: Array<Record<string, unknown>>) => rows.filter((row) => row.queue === queue);
  return {
    tasks: of(snapshot.tasks),
    tombstones: of(snapshot.tombstones),
    leaseHistory: of(snapshot.leaseHistory),
    storage: of(snapshot.storage),
  };
}

/** The live task row of `name` in `queue`, or undefined. */
export function taskRow(snapshot: DbSnapshot, queue: string, name: string): Record<string, unknown> | undefined {
  return snapshot.tasks.find((row) => row.queue === queue && row.name === name);
}

/**
 * Asserts an error reply reveals no task data: only Google's error
 * envelope, no items, payloads, lease times or ETag, and no name or payload
 * of a stored task other than `allowedName` (the one in the URL).
 */
export function expectNoTaskData(
  r: Reply,
  secrets: { names: readonly string[]; payloads: readonly string[] },
  allowedName?: string,
): void {
  expect(r.status).toBeGreaterThanOrEqual(400);
  expect(Object.keys(r.json ?? {})).toEqual(['error']);
  expect(r.headers.get('etag')).toBeNull();
  for (const word of [
    'items',
    'payloadBase64',
    'leaseTimestamp',
    'enqueueTimestamp',
    'retry_count',
    'taskqueues#task',
  ]) {
    expect(r.text).not.toContain(word);
  }
  for (const name of secrets.names) {
    if (name !== allowedName) expect(r.text).not.toContain(name);
  }
  for (const payload of secrets.payloads) {
    expect(r.text).not.toContain(payload);
    expect(r.text).not.toContain(Buffer.from(payload).toString('base64'));
    expect(r.text).not.toContain(Buffer.from(payload).toString('base64url'));
  }
}

/** Adds `waiting` (available) and `held` (leased for 5 minutes) to a queue; returns the held task as leased. */
export async function seedQueue(queue: TaskQueue, names: { waiting: string; held: string }): Promise<Task> {
  await queue.add({ name: names.waiting, payload: `${queue.name}-${names.waiting}-secret`, tag: 'w' });
  await queue.add({ name: names.held, payload: `${queue.name}-${names.held}-secret`, tag: 'h' });
  const leased = await queue.leaseTasks({ lease: 300, unit: 'seconds', maxTasks: 1, groupByTag: true, tag: 'h' });
  expect(leased.map((task) => task.name)).toEqual([names.held]);
  return leased[0] as Task;
}
