import { afterEach, describe, expect, it } from 'vitest';
import type { AccessControl, QueueAction, RequestCredentials } from '../../src/auth/access-control.js';
import { QueueError } from '../../src/core/errors.js';
import type { QueueConfig } from '../../src/core/queue-config.js';
import { batchBody, parseBatchReply, sendBatch } from './batch-helpers.js';
import { b64, openHarness, queuePath, type Harness } from './harness.js';

const tasks = `${queuePath()}/tasks`;

interface Check {
  readonly credentials: RequestCredentials;
  readonly queue: string | null;
  readonly action: QueueAction;
}

/** Token "good" may do anything; "limited" is refused (403); no token is 401. */
function denyingAccess(checks: Check[]): AccessControl {
  return {
    async check(credentials, queue: QueueConfig | null, action) {
      checks.push({ credentials, queue: queue?.name ?? null, action });
      const token = credentials.authorization?.replace(/^Bearer /, '') ?? credentials.oauthToken;
      if (token === undefined)
        throw new QueueError('UNAUTHENTICATED', 'Login Required', { wwwAuthenticate: 'Bearer realm="taskqueue"' });
      if (token !== 'good') {
        throw new QueueError('PERMISSION_DENIED', 'not allowed on this queue', {
          wwwAuthenticate: 'Bearer realm="taskqueue", error="insufficient_scope"',
        });
      }
      return { principal: { email: 'good@example.com', scopes: [] }, mayReadAcl: true };
    },
  };
}

describe('authorisation of the calls of a batch', () => {
  let h: Harness;
  afterEach(async () => h.close());

  async function seeded(checks: Check[]): Promise<Harness> {
    const harness = await openHarness('postgres', { accessControl: denyingAccess(checks) });
    const q = harness.t.service.getQueue('q');
    await q.add(['a', 'b', 'c', 'd'].map((name) => ({ name, payload: Buffer.from(name) })));
    return harness;
  }

  it("gives each call the batch request's Authorization unless the call carries its own (Google's rule)", async () => {
    const checks: Check[] = [];
    h = await seeded(checks);
    const parts = parseBatchReply(
      await sendBatch(
        h.app,
        batchBody([
          { line: `DELETE ${tasks}/a` },
          { line: `DELETE ${tasks}/b`, headers: { Authorization: 'Bearer limited' } },
          { line: `DELETE ${tasks}/c` },
          { line: `POST ${tasks}`, body: JSON.stringify({ id: 'new', payloadBase64: b64('n') }) },
          { line: `GET ${tasks}/d`, headers: { Authorization: 'Bearer limited' } },
        ]),
        { headers: { authorization: 'Bearer good' } },
      ),
    );
    expect(parts.map((p) => p.status)).toEqual([200, 403, 200, 200, 403]);
    expect(parts[1]!.headers['www-authenticate']).toBe('Bearer realm="taskqueue", error="insufficient_scope"');
    expect(parts[1]!.json.error.errors[0].reason).toBe('forbidden');
    expect(await h.t.sql(`select name from ${h.t.schema}.tasks order by name`)).toEqual([
      { name: 'b' },
      { name: 'd' },
      { name: 'new' },
    ]);
    // The combined DELETEs ask once per distinct credentials; routed calls ask as alone.
    const asked = checks.map((c) => [c.credentials.authorization, c.action]);
    expect(asked).toHaveLength(4);
    expect(asked).toEqual(
      expect.arrayContaining([
        ['Bearer good', 'task.delete'],
        ['Bearer limited', 'task.delete'],
        ['Bearer good', 'task.insert'],
        ['Bearer limited', 'task.get'],
      ]),
    );
  });

  it('refuses every call of an anonymous batch with 401 and its challenge, and deletes nothing', async () => {
    const checks: Check[] = [];
    h = await seeded(checks);
    const parts = parseBatchReply(
      await sendBatch(
        h.app,
        batchBody([{ line: `DELETE ${tasks}/a` }, { line: `DELETE ${tasks}/b` }, { line: `GET ${tasks}` }]),
      ),
    );
    expect(parts.map((p) => p.status)).toEqual([401, 401, 401]);
    for (const part of parts) expect(part.headers['www-authenticate']).toBe('Bearer realm="taskqueue"');
    expect(await h.t.sql(`select count(*)::int as n from ${h.t.schema}.tasks`)).toEqual([{ n: 4 }]);
  });

  it("passes the batch request's oauth_token query parameter on to each call", async () => {
    h = await seeded([]);
    const r = await sendBatch(h.app, batchBody([{ line: `DELETE ${tasks}/a` }, { line: `GET ${tasks}/b` }]), {
      path: '/batch?oauth_token=good',
    });
    expect(r.headers.get('cache-control')).toBe('private');
    const parts = parseBatchReply(r);
    expect(parts.map((p) => [p.status, p.headers['cache-control']])).toEqual([
      [200, 'private'],
      [200, 'private'],
    ]);
  });

  it('survives refusals that come while another decision is still pending (no unhandled rejection)', async () => {
    const slow: AccessControl = {
      async check(credentials) {
        if (credentials.authorization === 'Bearer slow') {
          await new Promise((resolve) => setTimeout(resolve, 30));
          return { principal: { email: 'slow@example.com', scopes: [] }, mayReadAcl: false };
        }
        throw new QueueError('PERMISSION_DENIED', 'not allowed on this queue', {
          wwwAuthenticate: 'Bearer error="insufficient_scope"',
        });
      },
    };
    h = await openHarness('postgres', { accessControl: slow });
    await h.t.service.getQueue('q').add([
      { name: 'a', payload: Buffer.from('a') },
      { name: 'b', payload: Buffer.from('b') },
    ]);
    const parts = parseBatchReply(
      await sendBatch(
        h.app,
        batchBody([
          { line: `DELETE ${tasks}/a`, headers: { Authorization: 'Bearer slow' } },
          { line: `DELETE ${tasks}/b`, headers: { Authorization: 'Bearer other' } },
          {
            line: `POST ${tasks}`,
            body: JSON.stringify({ id: 'c', payloadBase64: '' }),
            headers: { Authorization: 'Bearer slow' },
          },
          {
            line: `POST ${tasks}`,
            body: JSON.stringify({ id: 'd', payloadBase64: '' }),
            headers: { Authorization: 'Bearer other' },
          },
        ]),
      ),
    );
    expect(parts.map((p) => p.status)).toEqual([200, 403, 200, 403]);
  });

  it('asks before touching data: an unknown queue is refused as any other to a caller who may not know', async () => {
    const checks: Check[] = [];
    h = await seeded(checks);
    const parts = parseBatchReply(
      await sendBatch(h.app, batchBody([{ line: `DELETE ${queuePath('secret')}/tasks/a` }]), {
        headers: { authorization: 'Bearer limited' },
      }),
    );
    expect(parts[0]!.status).toBe(403);
    expect(checks).toEqual([
      { credentials: expect.objectContaining({ authorization: 'Bearer limited' }), queue: null, action: 'task.delete' },
    ]);
  });
});
