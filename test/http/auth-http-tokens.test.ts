import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { TASKQUEUE_CONSUMER_SCOPE, TASKQUEUE_SCOPE } from '../../src/auth/scopes.js';
import { ACL_ADMINS, ACL_USERS, aclMatrixConfig } from '../auth/acl-matrix.js';
import { FakeIdentityProvider, type FakeKey } from '../auth/fake-identity-provider.js';
import { createTestTokenIssuer, testAuthSettings, type TestTokenIssuer } from '../auth/test-token-issuer.js';
import { BARE, FRESH, INSERT_SCOPE, INVALID_REQUEST, INVALID_TOKEN, WAITING, secretsOf } from './auth-http-fixtures.js';
import { bearer, dbSnapshot, expectNoTaskData, openAuthApp, taskRow, type AuthApp } from './auth-http-harness.js';
import { b64, queuePath, unb64, type Loose } from './harness.js';

/**
 * Issue 4 through HTTP, the token matrix: how the real app on PostgreSQL
 * takes credentials (header, oauth_token, key=, local and JWKS issuers,
 * scopes) and refuses bad ones, changing nothing and revealing no task data.
 */

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
    readonly request: () => Promise<{
      path: string;
      method?: string;
      headers?: Record<string, string>;
      body?: unknown;
    }>;
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
      request: async () => ({
        path: tasks,
        method: 'POST',
        body: '{not json',
        headers: { 'content-type': 'application/json' },
      }),
      status: 401,
      challenge: BARE,
      reason: 'required',
    },
    {
      name: 'Basic credentials only (delete)',
      request: async () => ({
        path: `${tasks}/${WAITING}`,
        method: 'DELETE',
        headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' },
      }),
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
      request: async () => ({
        path: `${tasks}/${WAITING}?key=not-a-key`,
        method: 'DELETE',
        headers: bearer(await issuer.mint(ACL_USERS.consumer)),
      }),
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
        headers: bearer(
          await idp.sign(await idp.newKey('RS256', { publish: false }), {
            aud: 'taskqueue',
            email: ACL_USERS.consumer,
            scope: TASKQUEUE_SCOPE,
          }),
        ),
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
        const claims = {
          iss: idp.issuer,
          aud: 'taskqueue',
          email: ACL_USERS.producer,
          email_verified: true,
          scope: TASKQUEUE_SCOPE,
          exp: now() + 600,
        };
        return {
          path: tasks,
          method: 'POST',
          body: insertBody,
          headers: bearer(`${part({ alg: 'none' })}.${part(claims)}.`),
        };
      },
      status: 401,
      challenge: INVALID_TOKEN,
      reason: 'authError',
    },
    {
      name: 'the consumer scope inserting (the producer, whom the ACL lets insert)',
      request: async () => ({
        path: tasks,
        method: 'POST',
        body: insertBody,
        headers: bearer(await issuer.mint(ACL_USERS.producer, [TASKQUEUE_CONSUMER_SCOPE])),
      }),
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
      request: async () => ({
        path: `${tasks}/${WAITING}`,
        method: 'DELETE',
        headers: bearer(await idpToken(ACL_USERS.stranger)),
      }),
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
        errors: [
          {
            domain: 'global',
            reason: 'required',
            message: 'Login Required',
            locationType: 'header',
            location: 'Authorization',
          },
        ],
        code: 401,
        message: 'Login Required',
      },
    });
  });

  it('accepts the lowercase and upper-case scheme', async () => {
    for (const scheme of ['bearer', 'BEARER']) {
      const r = await h.call(`${tasks}/${WAITING}`, {
        headers: { authorization: `${scheme} ${await issuer.mint(ACL_USERS.consumer)}` },
      });
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
    const r = await h.call(`${tasks}/${WAITING}?key=${API_KEY}`, {
      headers: bearer(await idpToken(ACL_USERS.consumer)),
    });
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
    const inserted = await h.call(tasks, {
      method: 'POST',
      body: { id: 'tq-by-producer', payloadBase64: b64('p') },
      headers: producer,
    });
    expect(inserted.status).toBe(200);
    expect(taskRow(await dbSnapshot(h.t), 'alpha', 'tq-by-producer')).toMatchObject({ retry_count: 0 });
  });
});
