import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH_SETTINGS } from '../../src/auth/auth-settings.js';
import { DEFAULT_LOCAL_ISSUER, LocalIssuer } from '../../src/auth/local-issuer.js';
import { PgAuthStore } from '../../src/store/pg-auth-store.js';
import { DEFAULT_SCOPE_ALIASES } from '../../src/auth/scopes.js';
import { ACL_ADMINS, ACL_USERS, aclMatrixConfig } from '../auth/acl-matrix.js';
import { secondHandle } from '../auth/store-context-of.js';
import { createTestTokenIssuer } from '../auth/test-token-issuer.js';
import { CONFIG_ADMIN, FORBIDDEN_BODY, INSERT_SCOPE, INVALID_TOKEN } from './auth-http-fixtures.js';
import { bearer, dbSnapshot, expectNoTaskData, openAuthApp, taskRow, type AuthApp } from './auth-http-harness.js';
import { b64, listen, queuePath, type Loose } from './harness.js';

/**
 * Issue 4 through HTTP, the local issuer end to end: a fresh install's
 * settings (auth on, the local issuer on) on PostgreSQL, with tokens minted
 * in-process, by another process sharing the database, and through the
 * official client.
 */

/** googleapis@29.0.0 (CommonJS), as official-client.test.ts drives it. */
const { google } = createRequire(import.meta.url)('googleapis') as { google: Loose };

describe('local issuer end to end', () => {
  let h: AuthApp;
  let issuer: LocalIssuer;

  beforeAll(async () => {
    // What a fresh install runs with: auth on, the local issuer on, no other issuer.
    h = await openAuthApp(
      { ...aclMatrixConfig(), adminEmails: [CONFIG_ADMIN] },
      { ...DEFAULT_AUTH_SETTINGS, admins: ACL_ADMINS },
    );
    expect(h.accessControl.localIssuer).not.toBeNull();
    issuer = h.accessControl.localIssuer as LocalIssuer;
  });
  afterAll(async () => h?.close());

  const tasks = `${queuePath('alpha')}/tasks`;

  it('accepts a token from LocalIssuer.mint, and refuses a stranger one without changing anything', async () => {
    const minted = await issuer.mint({ email: ACL_USERS.producer });
    expect(minted.tokenType).toBe('Bearer');
    const r = await h.call(tasks, {
      method: 'POST',
      body: { id: 'tq-local-1', payloadBase64: b64('local') },
      headers: bearer(minted.accessToken),
    });
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
      const cli = new LocalIssuer(DEFAULT_LOCAL_ISSUER, new PgAuthStore(other.ctx), {
        scopeAliases: DEFAULT_SCOPE_ALIASES,
      });
      const consumer = await cli.mint({ email: ACL_USERS.consumer, scopes: ['taskqueue.consumer'], ttlSeconds: 120 });
      const leased = await h.call(`${tasks}/lease?numTasks=10&leaseSecs=60`, {
        method: 'POST',
        headers: bearer(consumer.accessToken),
      });
      expect(leased.status, leased.text).toBe(200);
      expect(leased.json.items.map((task: Loose) => task.id)).toContain('tq-local-1');
      const before = await dbSnapshot(h.t);
      const insert = await h.call(tasks, {
        method: 'POST',
        body: { id: 'tq-local-2', payloadBase64: '' },
        headers: bearer(consumer.accessToken),
      });
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
        {
          project: 's~local',
          taskqueue: 'alpha',
          resource: { id: 'tq-client-1', queueName: 'alpha', payloadBase64: b64('via googleapis') },
        },
        o,
      );
      expect(inserted.status).toBe(200);
      expect(inserted.data).toMatchObject({ id: 'tq-client-1', retry_count: 0 });
      expect(taskRow(await dbSnapshot(h.t), 'alpha', 'tq-client-1')).toMatchObject({
        payload: Buffer.from('via googleapis'),
      });

      const stranger = await clientFor(ACL_USERS.stranger);
      const before = await dbSnapshot(h.t);
      const error = await stranger.tasks
        .delete({ project: 's~local', taskqueue: 'alpha', task: 'tq-client-1' }, o)
        .catch((e: Loose) => e);
      expect(error.code).toBe(403);
      expect(error.errors).toEqual(FORBIDDEN_BODY.error.errors);
      expect(await dbSnapshot(h.t)).toEqual(before);
    } finally {
      await server.close();
    }
  });
});
