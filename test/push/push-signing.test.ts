import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { authSettingsFromEnvironment } from '../../src/auth/auth-settings.js';
import { createAccessControl } from '../../src/auth/create-access-control.js';
import { publicJwks } from '../../src/auth/push-token-signer.js';
import { createApp } from '../../src/http/create-app.js';
import { pullQueue } from '../helpers/configs.js';
import { pushQueue } from '../helpers/push-sink.js';
import { queuePath } from '../http/harness.js';
import { usePushFixture } from './push-fixture.js';

describe('signed push delivery', () => {
  const push = usePushFixture();

  it('signs each request with the local issuer key (JWKS), and our REST API refuses the token when a handler replays it', async () => {
    const { t, sink } = await push.start('postgres', {
      queues: (url) => [pushQueue('h', `${url}/hooks`), pullQueue('p')],
    });
    await t.service.getQueue('h').add({ url: '/run?x=1', payload: 'p' });
    await sink.waitFor(1);
    const authorization = sink.requests[0]!.headers.authorization!;
    expect(authorization).toMatch(/^Bearer /);
    const token = authorization.slice('Bearer '.length);

    // What a handler does (docs/push-queues.md): verify against the JWKS, issuer and its own URL.
    const jwks = createLocalJWKSet((await publicJwks(t.service.authStore)) as never);
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      issuer: 'urn:taskqueue:local',
      audience: `${sink.url}/hooks/run`,
    });
    expect(payload).toMatchObject({ email: 'taskqueue@local', sub: 'taskqueue@local' });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'JWT' });
    expect(payload.exp! - payload.iat!).toBe(300);

    // The replay: the same token against our own REST API is refused.
    const accessControl = createAccessControl(authSettingsFromEnvironment({ TASKQUEUE_ADMINS: 'admin@example.com' }), {
      store: t.service.authStore,
    });
    const app = createApp({ service: t.service, accessControl });
    const replayed = await app.request(`${queuePath('p')}/tasks`, { headers: { authorization } });
    expect(replayed.status).toBe(401);
    // While a token the local issuer minted for the API is accepted.
    const minted = await accessControl.localIssuer!.mint({ email: 'admin@example.com' });
    const accepted = await app.request(`${queuePath('p')}/tasks`, {
      headers: { authorization: `Bearer ${minted.accessToken}` },
    });
    expect(accepted.status).toBe(200);
  });

  it("keeps the task's own Authorization header", async () => {
    const { sink, queue } = await push.start('postgres');
    await queue.add({ headers: { Authorization: 'Basic abc' } });
    await sink.waitFor(1);
    expect(sink.requests[0]!.headers.authorization).toBe('Basic abc');
  });

  it('sends no Authorization with signing off', async () => {
    const { sink, queue } = await push.start('postgres', { open: { open: { pushSigning: false } } });
    await queue.add({ payload: 'x' });
    await sink.waitFor(1);
    expect(sink.requests[0]!.headers.authorization).toBeUndefined();
  });
});
