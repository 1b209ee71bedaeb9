import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/create-app.js';
import { openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

describe('administrators in acl, and caching of token-in-URL responses (postgres)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await openTestService('postgres', serviceConfig([pullQueue('q')], { adminEmails: ['xml-admin@example.com'] }));
  });
  afterAll(async () => t.close());

  const base = 'http://127.0.0.1/taskqueue/v1beta2/projects/local/taskqueues/q';

  it('lists every administrator, from TASKQUEUE_ADMINS and queue.xml, once', async () => {
    const app = createApp({
      service: t.service,
      adminEmails: ['env-admin@example.com', 'xml-admin@example.com', 'env-admin@example.com'],
    });
    const body = (await (await app.request(base)).json()) as { acl: { adminEmails: string[] } };
    expect(body.acl.adminEmails).toEqual(['env-admin@example.com', 'xml-admin@example.com']);
    const defaults = createApp({ service: t.service });
    const plain = (await (await defaults.request(base)).json()) as { acl: { adminEmails: string[] } };
    expect(plain.acl.adminEmails).toEqual(['xml-admin@example.com']);
  });

  it('marks responses private when the token came in the query, however the name is encoded', async () => {
    const app = createApp({ service: t.service });
    for (const name of ['oauth_token', 'oauth%5Ftoken', 'oauth%5ftoken']) {
      const r = await app.request(`${base}/tasks?${name}=some-token`);
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('private');
    }
    expect((await app.request(`${base}/tasks`)).headers.get('cache-control')).toBeNull();
  });
});
