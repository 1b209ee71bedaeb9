import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { QueueAction } from '../../src/auth/access-control.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { DEFAULT_AUTH_SETTINGS } from '../../src/auth/auth-settings.js';
import { DEFAULT_LOCAL_ISSUER, LocalIssuer } from '../../src/auth/local-issuer.js';
import { PgAuthStore } from '../../src/store/pg-auth-store.js';
import { DEFAULT_SCOPE_ALIASES, TASKQUEUE_CONSUMER_SCOPE, TASKQUEUE_SCOPE } from '../../src/auth/scopes.js';
import type { Task } from '../../src/core/task.js';
import { ACL_ADMINS, ACL_QUEUES, ACL_USERS, QUEUE_ACTIONS, UNKNOWN_QUEUE, aclMatrix, aclMatrixConfig, type AclMatrixRow } from '../auth/acl-matrix.js';
import { FakeIdentityProvider, type FakeKey } from '../auth/fake-identity-provider.js';
import { secondHandle } from '../auth/store-context-of.js';
import { createTestTokenIssuer, testAuthSettings, type TestTokenIssuer } from '../auth/test-token-issuer.js';
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
import { b64, listen, queuePath, unb64, type Loose, type Reply } from './harness.js';

/**
 * Issue 4 through HTTP: the real app (createApp) over the real access
 * control (createAccessControl) on PostgreSQL. Every denied request is
 * checked to have changed nothing in the database and to reveal no task
 * data; every allowed one to have done what it says.
 */

/** googleapis@29.0.0 (CommonJS), as official-client.test.ts drives it. */
const { google } = createRequire(import.meta.url)('googleapis') as { google: Loose };

/** A queue.xml root `<admin-email>`: an administrator by configuration (TASKQUEUE_ADMINS names ACL_USERS.admin). */
const CONFIG_ADMIN = 'root@example.com';

/** Task names distinctive enough that finding one in a response cannot be a coincidence. */
const WAITING = 'tq-waiting-7f3a';
const HELD = 'tq-held-9c1e';
const FRESH = 'tq-fresh-2b8d';

const BARE = 'Bearer realm="taskqueue"';
const INVALID_TOKEN = /^Bearer realm="taskqueue", error="invalid_token", error_description="[^"]+"$/;
const INVALID_REQUEST = /^Bearer realm="taskqueue", error="invalid_request", error_description="[^"]+"$/;
const INSERT_SCOPE = `Bearer realm="taskqueue", error="insufficient_scope", scope="${TASKQUEUE_SCOPE}"`;

/** The body of every ACL refusal: one fixed text, whatever the queue, the method or the caller. */
const FORBIDDEN_BODY = {
  error: {
    errors: [{ domain: 'global', reason: 'forbidden', message: 'The caller does not have permission' }],
    code: 403,
    message: 'The caller does not have permission',
  },
};

/** The names and payloads the fixture stores in every seeded queue (none may leak from a refusal). */
function secretsOf(queues: readonly string[]) {
  return {
    names: [WAITING, HELD, FRESH],
    payloads: queues.flatMap((queue) => [`${queue}-${WAITING}-secret`, `${queue}-${HELD}-secret`]),
  };
}

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
      expect(r.json).toMatchObject({ kind: 'taskqueues#taskqueue', id: queue, stats: { totalTasks: 2, leasedLastHour: '1' } });
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
    request: (queue) => ({ method: 'POST', path: `${queuePath(queue)}/tasks`, body: { id: FRESH, payloadBase64: b64(`new in ${queue}`), tag: 'n' } }),
    verify(r, queue, before, after) {
      expect(r.json).toMatchObject({ kind: 'taskqueues#task', id: FRESH, tag: 'n', retry_count: 0 });
      expect(taskRow(before, queue, FRESH)).toBeUndefined();
      expect(taskRow(after, queue, FRESH)).toMatchObject({ retry_count: 0, tag: 'n', payload: Buffer.from(`new in ${queue}`) });
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
    request: (queue) => ({ method: 'PATCH', path: `${queuePath(queue)}/tasks/${HELD}?newLeaseSeconds=900`, body: { queueName: queue, tag: 'patched' } }),
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
  .map(({ row, m }) => [`${row.role} ${m.method} on ${row.queueName} -> ${expectedStatus(row)}`, row.role, row.queueName, m.method] as const);

describe('ACL matrix through HTTP (PostgreSQL, real access control)', () => {
  let issuer: TestTokenIssuer;
  let h: AuthApp;
  let held: Held;

  beforeAll(async () => {
    issuer = await createTestTokenIssuer();
  });

  beforeEach(async () => {
    h = await openAuthApp({ ...aclMatrixConfig(), adminEmails: [CONFIG_ADMIN] }, testAuthSettings(issuer, { admins: ACL_ADMINS }));
    held = {};
    for (const queue of ACL_QUEUES) held[queue.name] = await seedQueue(h.queue(queue.name), { waiting: WAITING, held: HELD });
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
      const r = await h.call(`${queuePath(queue)}/tasks/${WAITING}`, { method: 'DELETE', headers: bearer(await issuer.mint(email)) });
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
      expect(r.json).toEqual({ kind: 'taskqueues#taskqueue', id: 'beta', maxLeases: 0, retryParameters: expect.any(Object) });
    }
  });

  it('applies the ACL on the short path form and the s~ project form too', async () => {
    const stranger = bearer(await issuer.mint(ACL_USERS.stranger));
    const consumer = bearer(await issuer.mint(ACL_USERS.consumer));
    const before = await dbSnapshot(h.t);
    for (const path of [`/taskqueue/v1beta2/projects/taskqueues/alpha/tasks/${WAITING}`, `${queuePath('alpha', 's~local')}/tasks/${WAITING}`]) {
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
    expect((await h.call(`${queuePath('alpha')}/tasks/${WAITING}`, { method: 'HEAD', headers: consumer })).status).toBe(200);
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

describe('token matrix through HTTP', () => {
  const API_KEY = 'AIza-test-key-of-the-tests';
  let issuer: TestTokenIssuer;
  let idp: FakeIdentityProvider;
  let rsa: FakeKey;
  let h: AuthApp;
  const now = () => Math.floor(Date.now() / 1000);

  /** A token of the fake identity provider (verified through its JWKS on loopback). */
  const idpToken = (email: string, claims: Record<string, unknown> = {}) =>
    idp.sign(rsa, { aud: 'taskqueue', sub: email, email, email_verified: true, scope: TASKQUEUE_SCOPE, ...claims });

  beforeAll(async () => {
    issuer = await createTestTokenIssuer();
    idp = await FakeIdentityProvider.start();
    rsa = await idp.newKey('RS256');
    const remote = {
      issuer: idp.issuer,
      audiences: ['taskqueue'],
      algorithms: ['RS256' as const],
      keys: { kind: 'remote' as const, url: idp.jwksUrl, cacheMaxAgeMs: 600_000, cooldownMs: 30_000, timeoutMs: 2000 },
      clockToleranceSeconds: 30,
      typ: null,
    };
    h = await openAuthApp(
      aclMatrixConfig(),
      testAuthSettings(issuer, {
        admins: ACL_ADMINS,
        issuers: [issuer.settings, remote],
        apiKeys: [{ application: 'tests', sha256: hashApiKey(API_KEY) }],
      }),
    );
    await h.queue('alpha').add({ name: WAITING, payload: `alpha-${WAITING}-secret`, tag: 'w' });
  });
  afterAll(async () => {
    await h?.close();
    await idp?.close();
  });

  const tasks = `${queuePath('alpha')}/tasks`;
  const insertBody = { id: FRESH, payloadBase64: b64('from a refused caller') };

  interface TokenRow {
    readonly name: string;
    readonly request: () => Promise<{ path: string; method?: string; headers?: Record<string, string>; body?: unknown }>;
    readonly status: number;
    readonly challenge: string | RegExp | null;
    readonly reason?: string;
    /** Words the challenge must contain (each row fails for its own reason). */
    readonly why?: string;
  }

  const REFUSED: TokenRow[] = [
    {
      name: 'no credentials (insert)',
      request: async () => ({ path: tasks, method: 'POST', body: insertBody }),
      status: 401,
      challenge: BARE,
      reason: 'required',
    },
    {
      name: 'no credentials, malformed body: the body is never read',
      request: async () => ({ path: tasks, method: 'POST', body: '{not json', headers: { 'content-type': 'application/json' } }),
      status: 401,
      challenge: BARE,
      reason: 'required',
    },
    {
      name: 'Basic credentials only (delete)',
      request: async () => ({ path: `${tasks}/${WAITING}`, method: 'DELETE', headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' } }),
      status: 401,
      challenge: BARE,
      reason: 'required',
    },
    {
      name: 'a configured key= alone (lease)',
      request: async () => ({ path: `${tasks}/lease?numTasks=10&leaseSecs=60&key=${API_KEY}`, method: 'POST' }),
      status: 401,
      challenge: BARE,
      reason: 'required',
    },
    {
      name: 'an unknown key= alone (get)',
      request: async () => ({ path: `${tasks}/${WAITING}?key=not-a-key` }),
      status: 401,
      challenge: BARE,
      reason: 'required',
    },
    {
      name: 'a valid token with an unknown key= (delete)',
      request: async () => ({ path: `${tasks}/${WAITING}?key=not-a-key`, method: 'DELETE', headers: bearer(await issuer.mint(ACL_USERS.consumer)) }),
      status: 400,
      challenge: null,
      reason: 'keyInvalid',
    },
    {
      name: 'expired (delete)',
      request: async () => ({
        path: `${tasks}/${WAITING}`,
        method: 'DELETE',
        headers: bearer(await idpToken(ACL_USERS.consumer, { iat: now() - 7200, exp: now() - 3600 })),
      }),
      status: 401,
      challenge: INVALID_TOKEN,
      reason: 'authError',
      why: 'exp claim timestamp check failed',
    },
    {
      name: 'wrong aud (lease)',
      request: async () => ({
        path: `${tasks}/lease?numTasks=10&leaseSecs=60`,
        method: 'POST',
        headers: bearer(await idpToken(ACL_USERS.consumer, { aud: 'another-api' })),
      }),
      status: 401,
      challenge: INVALID_TOKEN,
      reason: 'authError',
      why: 'unexpected aud claim value',
    },
    {
      name: 'unknown kid (patch)',
      request: async () => ({
        path: `${tasks}/${WAITING}?newLeaseSeconds=0`,
        method: 'PATCH',
        body: { tag: 'x' },
        headers: bearer(await idp.sign(await idp.newKey('RS256', { publish: false }), { aud: 'taskqueue', email: ACL_USERS.consumer, scope: TASKQUEUE_SCOPE })),
      }),
      status: 401,
      challenge: INVALID_TOKEN,
      reason: 'authError',
      why: 'no key of the issuer matches the token',
    },
    {
      name: 'alg none (insert)',
      request: async () => {
        const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
        const claims = { iss: idp.issuer, aud: 'taskqueue', email: ACL_USERS.producer, email_verified: true, scope: TASKQUEUE_SCOPE, exp: now() + 600 };
        return { path: tasks, method: 'POST', body: insertBody, headers: bearer(`${part({ alg: 'none' })}.${part(claims)}.`) };
      },
      status: 401,
      challenge: INVALID_TOKEN,
      reason: 'authError',
    },
    {
      name: 'the consumer scope inserting (the producer, whom the ACL lets insert)',
      request: async () => ({ path: tasks, method: 'POST', body: insertBody, headers: bearer(await issuer.mint(ACL_USERS.producer, [TASKQUEUE_CONSUMER_SCOPE])) }),
      status: 403,
      challenge: INSERT_SCOPE,
      reason: 'insufficientPermissions',
    },
    {
      name: 'token in both the header and oauth_token (delete)',
      request: async () => {
        const token = await issuer.mint(ACL_USERS.consumer);
        return { path: `${tasks}/${WAITING}?oauth_token=${token}`, method: 'DELETE', headers: bearer(token) };
      },
      status: 400,
      challenge: INVALID_REQUEST,
      reason: 'badRequest',
      why: 'both in the Authorization header and as oauth_token',
    },
    {
      name: 'a valid token of a caller outside the ACL (delete)',
      request: async () => ({ path: `${tasks}/${WAITING}`, method: 'DELETE', headers: bearer(await idpToken(ACL_USERS.stranger)) }),
      status: 403,
      challenge: null,
      reason: 'forbidden',
    },
  ];

  it.each(REFUSED.map((row) => [row.name, row] as const))('refuses: %s', async (_name, row) => {
    const request = await row.request();
    const before = await dbSnapshot(h.t);
    const r = await h.call(request.path, {
      method: request.method ?? 'GET',
      headers: request.headers ?? {},
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    expect(r.status, r.text).toBe(row.status);
    const challenge = r.headers.get('www-authenticate');
    if (row.challenge === null) expect(challenge).toBeNull();
    else if (typeof row.challenge === 'string') expect(challenge).toBe(row.challenge);
    else expect(challenge).toMatch(row.challenge);
    if (row.why !== undefined) expect(challenge).toContain(row.why);
    // Google's envelope, as the official client reads it.
    expect(r.json.error.code).toBe(row.status);
    expect(r.json.error.errors).toHaveLength(1);
    expect(r.json.error.errors[0]).toMatchObject({ domain: 'global', reason: row.reason });
    expect(r.json.error.message).toBe(r.json.error.errors[0].message);
    expectNoTaskData(r, secretsOf(['alpha']), request.path.includes(WAITING) ? WAITING : undefined);
    // Neither the token nor the key comes back.
    const token = (request.headers?.authorization ?? '').replace(/^Bearer /, '');
    if (token.length > 20) expect(r.text).not.toContain(token.split('.')[1] ?? token);
    expect(r.text).not.toContain(API_KEY);
    expect(await dbSnapshot(h.t)).toEqual(before);
  });

  it('answers no credentials with the bare challenge and the "Login Required" envelope, exactly', async () => {
    const r = await h.call(`${tasks}/${WAITING}`);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(BARE);
    expect(r.json).toEqual({
      error: {
        errors: [{ domain: 'global', reason: 'required', message: 'Login Required', locationType: 'header', location: 'Authorization' }],
        code: 401,
        message: 'Login Required',
      },
    });
  });

  it('accepts the lowercase and upper-case scheme', async () => {
    for (const scheme of ['bearer', 'BEARER']) {
      const r = await h.call(`${tasks}/${WAITING}`, { headers: { authorization: `${scheme} ${await issuer.mint(ACL_USERS.consumer)}` } });
      expect(r.status, scheme).toBe(200);
      expect(unb64(r.json.payloadBase64)).toBe(`alpha-${WAITING}-secret`);
    }
  });

  it('accepts oauth_token in the query, marks the answer Cache-Control: private, and does not echo the token', async () => {
    const token = await issuer.mint(ACL_USERS.consumer);
    const r = await h.call(`${tasks}?oauth_token=${token}`);
    expect(r.status).toBe(200);
    expect(r.json.items.map((task: Loose) => task.id)).toEqual([WAITING]);
    expect(r.headers.get('cache-control')).toBe('private');
    expect(r.text).not.toContain(token);
    // Refusals of a request with a token in its URL must not be cached by shared caches either.
    const denied = await h.call(`${tasks}?oauth_token=${await issuer.mint(ACL_USERS.stranger)}`);
    expect(denied.status).toBe(403);
    expect(denied.headers.get('cache-control')).toBe('private');
    // A header token leaves caching alone.
    expect((await h.call(tasks, { headers: bearer(token) })).headers.get('cache-control')).not.toBe('private');
  });

  it('accepts a token of the JWKS issuer on loopback, and a configured key= next to a token', async () => {
    const r = await h.call(`${tasks}/${WAITING}?key=${API_KEY}`, { headers: bearer(await idpToken(ACL_USERS.consumer)) });
    expect(r.status).toBe(200);
    expect(r.json.id).toBe(WAITING);
    expect(idp.jwksFetches).toBeGreaterThan(0);
  });

  it('lets the consumer scope consume and read the queue, but not insert', async () => {
    const consumer = bearer(await issuer.mint(ACL_USERS.consumer, ['taskqueue.consumer']));
    expect((await h.call(queuePath('alpha'), { headers: consumer })).status).toBe(200);
    expect((await h.call(`${tasks}/${WAITING}`, { headers: consumer })).status).toBe(200);
    const before = await dbSnapshot(h.t);
    const insert = await h.call(tasks, { method: 'POST', body: insertBody, headers: consumer });
    expect(insert.status).toBe(403);
    expect(insert.headers.get('www-authenticate')).toBe(INSERT_SCOPE);
    expect(await dbSnapshot(h.t)).toEqual(before);
    const producer = bearer(await issuer.mint(ACL_USERS.producer, [TASKQUEUE_SCOPE]));
    const inserted = await h.call(tasks, { method: 'POST', body: { id: 'tq-by-producer', payloadBase64: b64('p') }, headers: producer });
    expect(inserted.status).toBe(200);
    expect(taskRow(await dbSnapshot(h.t), 'alpha', 'tq-by-producer')).toMatchObject({ retry_count: 0 });
  });
});

describe('local issuer end to end', () => {
  let h: AuthApp;
  let issuer: LocalIssuer;

  beforeAll(async () => {
    // What a fresh install runs with: auth on, the local issuer on, no other issuer.
    h = await openAuthApp({ ...aclMatrixConfig(), adminEmails: [CONFIG_ADMIN] }, { ...DEFAULT_AUTH_SETTINGS, admins: ACL_ADMINS });
    expect(h.accessControl.localIssuer).not.toBeNull();
    issuer = h.accessControl.localIssuer as LocalIssuer;
  });
  afterAll(async () => h?.close());

  const tasks = `${queuePath('alpha')}/tasks`;

  it('accepts a token from LocalIssuer.mint, and refuses a stranger one without changing anything', async () => {
    const minted = await issuer.mint({ email: ACL_USERS.producer });
    expect(minted.tokenType).toBe('Bearer');
    const r = await h.call(tasks, { method: 'POST', body: { id: 'tq-local-1', payloadBase64: b64('local') }, headers: bearer(minted.accessToken) });
    expect(r.status, r.text).toBe(200);
    expect(taskRow(await dbSnapshot(h.t), 'alpha', 'tq-local-1')).toMatchObject({ payload: Buffer.from('local') });

    const stranger = await issuer.mint({ email: ACL_USERS.stranger });
    const before = await dbSnapshot(h.t);
    const denied = await h.call(`${tasks}/tq-local-1`, { method: 'DELETE', headers: bearer(stranger.accessToken) });
    expect(denied.status).toBe(403);
    expect(denied.json).toEqual(FORBIDDEN_BODY);
    expect(await dbSnapshot(h.t)).toEqual(before);
  });

  it('accepts a token minted by another process sharing the database (as `taskqueue token` does)', async () => {
    const other = await secondHandle(h.t);
    try {
      const cli = new LocalIssuer(DEFAULT_LOCAL_ISSUER, new PgAuthStore(other.ctx), { scopeAliases: DEFAULT_SCOPE_ALIASES });
      const consumer = await cli.mint({ email: ACL_USERS.consumer, scopes: ['taskqueue.consumer'], ttlSeconds: 120 });
      const leased = await h.call(`${tasks}/lease?numTasks=10&leaseSecs=60`, { method: 'POST', headers: bearer(consumer.accessToken) });
      expect(leased.status, leased.text).toBe(200);
      expect(leased.json.items.map((task: Loose) => task.id)).toContain('tq-local-1');
      const before = await dbSnapshot(h.t);
      const insert = await h.call(tasks, { method: 'POST', body: { id: 'tq-local-2', payloadBase64: '' }, headers: bearer(consumer.accessToken) });
      expect(insert.status).toBe(403);
      expect(insert.headers.get('www-authenticate')).toBe(INSERT_SCOPE);
      expect(await dbSnapshot(h.t)).toEqual(before);
    } finally {
      await other.database.close();
    }
  });

  it('refuses a token of a revoked key with invalid_token, and accepts one of the new key', async () => {
    const old = await issuer.mint({ email: ACL_USERS.consumer });
    expect((await h.call(tasks, { headers: bearer(old.accessToken) })).status).toBe(200);
    await issuer.rotateKey({ revoke: true });
    const before = await dbSnapshot(h.t);
    const r = await h.call(tasks, { headers: bearer(old.accessToken) });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(INVALID_TOKEN);
    expectNoTaskData(r, { names: ['tq-local-1'], payloads: ['local'] });
    expect(await dbSnapshot(h.t)).toEqual(before);
    const fresh = await issuer.mint({ email: ACL_USERS.consumer });
    expect((await h.call(tasks, { headers: bearer(fresh.accessToken) })).status).toBe(200);
  });

  it('does not accept a token of an issuer it was not configured with', async () => {
    const foreign = await createTestTokenIssuer();
    const r = await h.call(tasks, { headers: bearer(await foreign.mint(ACL_USERS.admin)) });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(INVALID_TOKEN);
  });

  it("accepts the official client's Bearer header (googleapis@29, OAuth2Client with an access token)", async () => {
    const server = await listen(h.app);
    try {
      const o = { rootUrl: `${server.url}/` };
      const clientFor = async (email: string) => {
        const auth = new google.auth.OAuth2();
        auth.setCredentials({ access_token: (await issuer.mint({ email })).accessToken });
        return google.taskqueue({ version: 'v1beta2', auth });
      };
      const producer = await clientFor(ACL_USERS.producer);
      const inserted = await producer.tasks.insert(
        { project: 's~local', taskqueue: 'alpha', resource: { id: 'tq-client-1', queueName: 'alpha', payloadBase64: b64('via googleapis') } },
        o,
      );
      expect(inserted.status).toBe(200);
      expect(inserted.data).toMatchObject({ id: 'tq-client-1', retry_count: 0 });
      expect(taskRow(await dbSnapshot(h.t), 'alpha', 'tq-client-1')).toMatchObject({ payload: Buffer.from('via googleapis') });

      const stranger = await clientFor(ACL_USERS.stranger);
      const before = await dbSnapshot(h.t);
      const error = await stranger.tasks.delete({ project: 's~local', taskqueue: 'alpha', task: 'tq-client-1' }, o).catch((e: Loose) => e);
      expect(error.code).toBe(403);
      expect(error.errors).toEqual(FORBIDDEN_BODY.error.errors);
      expect(await dbSnapshot(h.t)).toEqual(before);
    } finally {
      await server.close();
    }
  });
});
