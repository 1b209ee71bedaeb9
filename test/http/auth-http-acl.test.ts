import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { QueueAction } from '../../src/auth/access-control.js';
import type { Task } from '../../src/core/task.js';
import {
  ACL_ADMINS,
  ACL_QUEUES,
  ACL_USERS,
  QUEUE_ACTIONS,
  UNKNOWN_QUEUE,
  aclMatrix,
  aclMatrixConfig,
  type AclMatrixRow,
} from '../auth/acl-matrix.js';
import { createTestTokenIssuer, testAuthSettings, type TestTokenIssuer } from '../auth/test-token-issuer.js';
import { CONFIG_ADMIN, FORBIDDEN_BODY, FRESH, HELD, WAITING, secretsOf } from './auth-http-fixtures.js';
import {
  bearer,
  dbSnapshot,
  expectNoTaskData,
  openAuthApp,
  rowsOf,
  seedQueue,
  taskRow,
  type AuthApp,
  type DbSnapshot,
} from './auth-http-harness.js';
import { b64, queuePath, unb64, type Loose, type Reply } from './harness.js';

/**
 * Issue 4 through HTTP, the ACL matrix: the real app (createApp) over the
 * real access control (createAccessControl) on PostgreSQL. Every denied
 * request is checked to have changed nothing in the database and to reveal
 * no task data; every allowed one to have done what it says.
 */

/** The seeded state of one row: the held task of each queue, as leased. */
type Held = Record<string, Task>;

/** One REST method of the matrix: its request, and what an allowed call must have done. */
interface RestMethodCase {
  readonly method: string;
  readonly action: QueueAction;
  /** The task named in the URL, if any. */
  readonly task?: string;
  request(queue: string, held: Held): { path: string; method: string; body?: unknown };
  /** Checks the reply and the database after an allowed call on a configured queue. */
  verify(r: Reply, queue: string, before: DbSnapshot, after: DbSnapshot, role: string): void;
}

const METHODS: readonly RestMethodCase[] = [
  {
    method: 'taskqueues.get',
    action: 'queue.get',
    request: (queue) => ({ method: 'GET', path: `${queuePath(queue)}?getStats=true` }),
    verify(r, queue, before, after, role) {
      expect(r.json).toMatchObject({
        kind: 'taskqueues#taskqueue',
        id: queue,
        stats: { totalTasks: 2, leasedLastHour: '1' },
      });
      const config = ACL_QUEUES.find((q) => q.name === queue);
      if (role === 'admin') {
        expect(r.json.acl).toEqual({
          adminEmails: expect.arrayContaining([CONFIG_ADMIN]),
          consumerEmails: config?.acl.userEmails,
          producerEmails: config?.acl.writerEmails,
        });
      } else {
        expect(r.json).not.toHaveProperty('acl');
        expect(r.text).not.toContain('@');
      }
      expect(after).toEqual(before);
    },
  },
  {
    method: 'tasks.insert',
    action: 'task.insert',
    request: (queue) => ({
      method: 'POST',
      path: `${queuePath(queue)}/tasks`,
      body: { id: FRESH, payloadBase64: b64(`new in ${queue}`), tag: 'n' },
    }),
    verify(r, queue, before, after) {
      expect(r.json).toMatchObject({ kind: 'taskqueues#task', id: FRESH, tag: 'n', retry_count: 0 });
      expect(taskRow(before, queue, FRESH)).toBeUndefined();
      expect(taskRow(after, queue, FRESH)).toMatchObject({
        retry_count: 0,
        tag: 'n',
        payload: Buffer.from(`new in ${queue}`),
      });
      expect(after.tasks.filter((row) => row.name !== FRESH)).toEqual(before.tasks);
    },
  },
  {
    method: 'tasks.lease',
    action: 'task.lease',
    request: (queue) => ({ method: 'POST', path: `${queuePath(queue)}/tasks/lease?numTasks=10&leaseSecs=60` }),
    verify(r, queue, before, after) {
      expect(r.json.items.map((task: Loose) => [task.id, task.retry_count, unb64(task.payloadBase64)])).toEqual([
        [WAITING, 1, `${queue}-${WAITING}-secret`],
      ]);
      expect(taskRow(before, queue, WAITING)).toMatchObject({ retry_count: 0 });
      expect(taskRow(after, queue, WAITING)).toMatchObject({ retry_count: 1 });
      expect(taskRow(after, queue, WAITING)?.eta).not.toBe(taskRow(before, queue, WAITING)?.eta);
      expect(rowsOf(after, queue).leaseHistory).toHaveLength(rowsOf(before, queue).leaseHistory.length + 1);
    },
  },
  {
    method: 'tasks.get',
    action: 'task.get',
    task: WAITING,
    request: (queue) => ({ method: 'GET', path: `${queuePath(queue)}/tasks/${WAITING}` }),
    verify(r, queue, before, after) {
      expect(r.json).toMatchObject({ kind: 'taskqueues#task', id: WAITING, tag: 'w' });
      expect(unb64(r.json.payloadBase64)).toBe(`${queue}-${WAITING}-secret`);
      expect(after).toEqual(before);
    },
  },
  {
    method: 'tasks.list',
    action: 'task.list',
    request: (queue) => ({ method: 'GET', path: `${queuePath(queue)}/tasks` }),
    verify(r, _queue, before, after) {
      expect(r.json.items.map((task: Loose) => task.id).sort()).toEqual([HELD, WAITING].sort());
      expect(r.json.items.every((task: Loose) => task.payloadBase64 === undefined)).toBe(true);
      expect(after).toEqual(before);
    },
  },
  {
    method: 'tasks.update (POST)',
    action: 'task.update',
    task: HELD,
    request: (queue, held) => ({
      method: 'POST',
      path: `${queuePath(queue)}/tasks/${HELD}?newLeaseSeconds=900`,
      body: { queueName: queue, leaseTimestamp: String(held[queue]?.etaUsec) },
    }),
    verify(r, queue, before, after) {
      expect(r.json).toMatchObject({ id: HELD, retry_count: 1, tag: 'h' });
      const now = Date.now() * 1000;
      expect(Number(r.json.leaseTimestamp)).toBeGreaterThan(now + 800e6);
      expect(taskRow(after, queue, HELD)?.eta).not.toBe(taskRow(before, queue, HELD)?.eta);
      expect(taskRow(after, queue, WAITING)).toEqual(taskRow(before, queue, WAITING));
    },
  },
  {
    method: 'tasks.patch',
    action: 'task.update',
    task: HELD,
    request: (queue) => ({
      method: 'PATCH',
      path: `${queuePath(queue)}/tasks/${HELD}?newLeaseSeconds=900`,
      body: { queueName: queue, tag: 'patched' },
    }),
    verify(r, queue, before, after) {
      expect(r.json).toMatchObject({ id: HELD, retry_count: 1, tag: 'patched' });
      expect(taskRow(before, queue, HELD)).toMatchObject({ tag: 'h' });
      expect(taskRow(after, queue, HELD)).toMatchObject({ tag: 'patched' });
      expect(taskRow(after, queue, WAITING)).toEqual(taskRow(before, queue, WAITING));
    },
  },
  {
    method: 'tasks.delete',
    action: 'task.delete',
    task: WAITING,
    request: (queue) => ({ method: 'DELETE', path: `${queuePath(queue)}/tasks/${WAITING}` }),
    verify(r, queue, before, after) {
      expect(r.text).toBe('');
      expect(taskRow(before, queue, WAITING)).toBeDefined();
      expect(taskRow(after, queue, WAITING)).toBeUndefined();
      expect(rowsOf(after, queue).tombstones).toEqual([{ queue, name: WAITING, reason: 'deleted', retry_count: 0 }]);
      expect(taskRow(after, queue, HELD)).toEqual(taskRow(before, queue, HELD));
    },
  },
];

/** The matrix row (hand-written expectations in test/auth/acl-matrix.ts) of a role, queue and action. */
function matrixRow(role: string, queue: string, action: QueueAction): AclMatrixRow {
  const row = aclMatrix().find((r) => r.role === role && r.queueName === queue && r.action === action);
  if (!row) throw new Error(`no matrix row for ${role} ${action} on ${queue}`);
  return row;
}

/** The HTTP status a matrix row must get: allowed on a configured queue 200, allowed on an unknown queue 404, else 403. */
function expectedStatus(row: AclMatrixRow): number {
  if (!row.allowed) return 403;
  return row.configured ? 200 : 404;
}

const CASES = aclMatrix()
  .flatMap((row) => METHODS.filter((m) => m.action === row.action).map((m) => ({ row, m })))
  .map(
    ({ row, m }) =>
      [
        `${row.role} ${m.method} on ${row.queueName} -> ${expectedStatus(row)}`,
        row.role,
        row.queueName,
        m.method,
      ] as const,
  );

describe('ACL matrix through HTTP (PostgreSQL, real access control)', () => {
  let issuer: TestTokenIssuer;
  let h: AuthApp;
  let held: Held;

  beforeAll(async () => {
    issuer = await createTestTokenIssuer();
  });

  beforeEach(async () => {
    h = await openAuthApp(
      { ...aclMatrixConfig(), adminEmails: [CONFIG_ADMIN] },
      testAuthSettings(issuer, { admins: ACL_ADMINS }),
    );
    held = {};
    for (const queue of ACL_QUEUES)
      held[queue.name] = await seedQueue(h.queue(queue.name), { waiting: WAITING, held: HELD });
  });
  afterEach(async () => h.close());

  it('covers every matrix row with every REST method of its action: 4 callers x 8 methods x 3 queue names', () => {
    expect(CASES).toHaveLength(96);
    expect(new Set(METHODS.map((m) => m.action))).toEqual(new Set(QUEUE_ACTIONS));
    expect(aclMatrix().every((row) => METHODS.some((m) => m.action === row.action))).toBe(true);
  });

  it.each(CASES)('%s', async (_name, role, queueName, methodName) => {
    const m = METHODS.find((x) => x.method === methodName) as RestMethodCase;
    const row = matrixRow(role, queueName, m.action);
    const token = await issuer.mint(row.email);
    const request = m.request(queueName, held);
    const before = await dbSnapshot(h.t);
    const r = await h.call(request.path, {
      method: request.method,
      headers: bearer(token),
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    const after = await dbSnapshot(h.t);
    expect(r.status, r.text).toBe(expectedStatus(row));
    const secrets = secretsOf(ACL_QUEUES.map((q) => q.name));

    if (!row.allowed) {
      expect(r.json).toEqual(FORBIDDEN_BODY);
      // A known caller outside the ACL: the token is fine, so no challenge.
      expect(r.headers.get('www-authenticate')).toBeNull();
      expectNoTaskData(r, secrets, m.task);
      expect(r.text).not.toContain(queueName);
      expect(r.text).not.toContain(row.email);
      expect(after).toEqual(before);
      return;
    }
    if (!row.configured) {
      // Only administrators get past the ACL on an unknown queue, and learn that it does not exist.
      expect(role).toBe('admin');
      expect(r.json.error.errors[0].reason).toBe('notFound');
      expectNoTaskData(r, secrets, m.task);
      expect(after).toEqual(before);
      return;
    }
    expect(r.status).toBe(200);
    m.verify(r, queueName, before, after, role);
    // Whatever it did, it did to its own queue only.
    for (const other of ['default', ...ACL_QUEUES.map((q) => q.name)].filter((q) => q !== queueName)) {
      expect(rowsOf(after, other)).toEqual(rowsOf(before, other));
    }
    expect(after.signingKeys).toEqual(before.signingKeys);
  });

  it('refuses a configured queue and an unknown one with the same body (queue names cannot be probed)', async () => {
    // Each caller is known to the queue where it is refused (except the stranger), or the queue does not exist.
    const refused: Array<[string, string]> = [
      ['alpha', ACL_USERS.stranger],
      ['alpha', ACL_USERS.producer],
      ['beta', ACL_USERS.stranger],
      ['beta', ACL_USERS.consumer],
      [UNKNOWN_QUEUE, ACL_USERS.stranger],
      [UNKNOWN_QUEUE, ACL_USERS.producer],
      [UNKNOWN_QUEUE, ACL_USERS.consumer],
    ];
    const bodies = new Set<string>();
    const before = await dbSnapshot(h.t);
    for (const [queue, email] of refused) {
      const r = await h.call(`${queuePath(queue)}/tasks/${WAITING}`, {
        method: 'DELETE',
        headers: bearer(await issuer.mint(email)),
      });
      expect(r.status, `${email} on ${queue}: ${r.text}`).toBe(403);
      bodies.add(r.text);
    }
    expect(await dbSnapshot(h.t)).toEqual(before);
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0] ?? '')).toEqual(FORBIDDEN_BODY);
  });

  it('shows the acl to the queue.xml <admin-email> administrator, not to a writer or user of the queue', async () => {
    const admin = await h.call(queuePath('beta'), { headers: bearer(await issuer.mint('Root@Example.com')) });
    expect(admin.status).toBe(200);
    expect(admin.json.acl).toEqual({
      adminEmails: expect.arrayContaining([CONFIG_ADMIN]),
      consumerEmails: [ACL_USERS.producer],
      producerEmails: ['Consumer@Example.COM'],
    });
    for (const email of [ACL_USERS.producer, ACL_USERS.consumer]) {
      const r = await h.call(queuePath('beta'), { headers: bearer(await issuer.mint(email)) });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({
        kind: 'taskqueues#taskqueue',
        id: 'beta',
        maxLeases: 0,
        retryParameters: expect.any(Object),
      });
    }
  });

  it('applies the ACL on the short path form and the s~ project form too', async () => {
    const stranger = bearer(await issuer.mint(ACL_USERS.stranger));
    const consumer = bearer(await issuer.mint(ACL_USERS.consumer));
    const before = await dbSnapshot(h.t);
    for (const path of [
      `/taskqueue/v1beta2/projects/taskqueues/alpha/tasks/${WAITING}`,
      `${queuePath('alpha', 's~local')}/tasks/${WAITING}`,
    ]) {
      const denied = await h.call(path, { method: 'DELETE', headers: stranger });
      expect(denied.status).toBe(403);
      expect(denied.json).toEqual(FORBIDDEN_BODY);
      expect(await dbSnapshot(h.t)).toEqual(before);
      expect((await h.call(path, { headers: consumer })).status).toBe(200);
    }
  });

  it('guards the PUT extension and HEAD like the methods they stand beside', async () => {
    const stranger = bearer(await issuer.mint(ACL_USERS.stranger));
    const producer = bearer(await issuer.mint(ACL_USERS.producer));
    const consumer = bearer(await issuer.mint(ACL_USERS.consumer));
    const put = `${queuePath('alpha')}/tasks/${HELD}?newLeaseSeconds=900`;
    const before = await dbSnapshot(h.t);
    for (const headers of [stranger, producer]) {
      const r = await h.call(put, { method: 'PUT', headers, body: { queueName: 'alpha' } });
      expect(r.status).toBe(403);
      expect(r.json).toEqual(FORBIDDEN_BODY);
      const head = await h.call(`${queuePath('alpha')}/tasks/${WAITING}`, { method: 'HEAD', headers });
      expect(head.status).toBe(403);
      expect(head.headers.get('etag')).toBeNull();
    }
    expect(await dbSnapshot(h.t)).toEqual(before);
    expect((await h.call(`${queuePath('alpha')}/tasks/${WAITING}`, { method: 'HEAD', headers: consumer })).status).toBe(
      200,
    );
    // PUT replaces: the tag left out is cleared.
    const r = await h.call(put, { method: 'PUT', headers: consumer, body: { queueName: 'alpha' } });
    expect(r.status, r.text).toBe(200);
    expect(taskRow(await dbSnapshot(h.t), 'alpha', HELD)).toMatchObject({ tag: null, retry_count: 1 });
  });

  it('refuses through X-HTTP-Method-Override as through PATCH', async () => {
    const before = await dbSnapshot(h.t);
    const r = await h.call(`${queuePath('alpha')}/tasks/${HELD}?newLeaseSeconds=0`, {
      method: 'POST',
      headers: { ...bearer(await issuer.mint(ACL_USERS.producer)), 'x-http-method-override': 'PATCH' },
      body: { tag: 'stolen' },
    });
    expect(r.status).toBe(403);
    expect(r.json).toEqual(FORBIDDEN_BODY);
    expect(await dbSnapshot(h.t)).toEqual(before);
  });
});
