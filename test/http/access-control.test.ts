import { afterEach, describe, expect, it } from 'vitest';
import type { AccessControl, QueueAction, RequestCredentials } from '../../src/auth/access-control.js';
import type { QueueConfig } from '../../src/core/queue-config.js';
import { QueueError } from '../../src/core/errors.js';
import { b64, openHarness, queuePath, type Harness } from './harness.js';

const tasks = `${queuePath()}/tasks`;

interface Check {
  readonly credentials: RequestCredentials;
  readonly queue: string | null;
  readonly action: QueueAction;
}

/**
 * A stand-in AccessControl: token "good" may do anything, "reader" may do
 * anything but read ACLs, "limited" is refused (403), no token is 401.
 */
function fakeAccess(checks: Check[]): AccessControl {
  return {
    async check(credentials, queue: QueueConfig | null, action) {
      checks.push({ credentials, queue: queue?.name ?? null, action });
      const token = credentials.authorization?.replace(/^Bearer /, '') ?? credentials.oauthToken;
      if (token === undefined) {
        throw new QueueError('UNAUTHENTICATED', 'a bearer token is required', {
          wwwAuthenticate: 'Bearer realm="taskqueue"',
        });
      }
      if (token === 'limited') {
        throw new QueueError('PERMISSION_DENIED', 'not allowed on this queue', {
          wwwAuthenticate: 'Bearer realm="taskqueue", error="insufficient_scope"',
        });
      }
      return { principal: { email: `${token}@example.com`, scopes: [] }, mayReadAcl: token === 'good' };
    },
  };
}

describe('the AccessControl seam', () => {
  let h: Harness;
  afterEach(async () => h.close());

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('is asked before any data is touched, and 401 carries WWW-Authenticate', async () => {
    const checks: Check[] = [];
    h = await openHarness('postgres', { accessControl: fakeAccess(checks) });
    const r = await h.call(tasks, { method: 'POST', body: { id: 'x', payloadBase64: b64('x') } });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="taskqueue"');
    expect(r.json.error.errors[0].reason).toBe('authError');
    expect(await h.t.sql(`select 1 from ${h.t.schema}.tasks`)).toEqual([]);
    // The body is not even read: malformed JSON from an unauthenticated caller is still 401.
    expect(
      (await h.call(tasks, { method: 'POST', body: '{broken', headers: { 'content-type': 'application/json' } }))
        .status,
    ).toBe(401);
    expect(checks.map((c) => [c.queue, c.action])).toEqual([
      ['q', 'task.insert'],
      ['q', 'task.insert'],
    ]);
  });

  it('refuses with 403 and its challenge, and nothing changes', async () => {
    h = await openHarness('postgres', { accessControl: fakeAccess([]) });
    await h.call(tasks, { method: 'POST', body: { id: 'x', payloadBase64: '' }, headers: bearer('good') });
    const r = await h.call(`${tasks}/x`, { method: 'DELETE', headers: bearer('limited') });
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toContain('insufficient_scope');
    expect(r.json.error.errors[0].reason).toBe('forbidden');
    expect((await h.call(`${tasks}/x`, { headers: bearer('good') })).status).toBe(200);
  });

  it('names the action of each method', async () => {
    const checks: Check[] = [];
    h = await openHarness('postgres', { accessControl: fakeAccess(checks) });
    const headers = bearer('good');
    await h.call(queuePath(), { headers });
    await h.call(tasks, { headers });
    await h.call(tasks, { method: 'POST', body: { id: 't', payloadBase64: '' }, headers });
    await h.call(`${tasks}/lease?numTasks=1&leaseSecs=60`, { method: 'POST', headers });
    await h.call(`${tasks}/t`, { headers });
    await h.call(`${tasks}/t?newLeaseSeconds=60`, { method: 'POST', body: {}, headers });
    await h.call(`${tasks}/t?newLeaseSeconds=60`, { method: 'PATCH', body: {}, headers });
    await h.call(`${tasks}/t`, { method: 'DELETE', headers });
    expect(checks.map((c) => c.action)).toEqual([
      'queue.get',
      'task.list',
      'task.insert',
      'task.lease',
      'task.get',
      'task.update',
      'task.update',
      'task.delete',
    ]);
  });

  it('passes an unknown queue as null, so the AccessControl decides who learns it does not exist', async () => {
    const checks: Check[] = [];
    h = await openHarness('postgres', { accessControl: fakeAccess(checks) });
    expect((await h.call(`${queuePath('ghost')}/tasks`)).status).toBe(401);
    expect((await h.call(`${queuePath('ghost')}/tasks`, { headers: bearer('good') })).status).toBe(404);
    expect(checks.map((c) => c.queue)).toEqual([null, null]);
  });

  it('collects the Authorization header, oauth_token and key', async () => {
    const checks: Check[] = [];
    h = await openHarness('postgres', { accessControl: fakeAccess(checks) });
    expect((await h.call(`${queuePath()}?oauth_token=good&key=api-key-1`)).status).toBe(200);
    expect(checks[0]?.credentials).toEqual({ authorization: undefined, oauthToken: 'good', apiKey: 'api-key-1' });
    expect((await h.call(`${queuePath()}?oauth_token=a&oauth_token=b`)).status).toBe(400);
  });

  it('shows the ACL in taskqueues.get only when the decision allows it', async () => {
    h = await openHarness('postgres', { accessControl: fakeAccess([]), adminEmails: ['admin@example.com'] });
    expect((await h.call(queuePath(), { headers: bearer('good') })).json.acl).toEqual({
      adminEmails: ['admin@example.com'],
      consumerEmails: [],
      producerEmails: [],
    });
    const reader = await h.call(queuePath(), { headers: bearer('reader') });
    expect(reader.status).toBe(200);
    expect(reader.json.acl).toBeUndefined();
  });
});
