import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { authSettingsFromEnvironment } from '../../src/auth/auth-settings.js';
import { createAccessControl } from '../../src/auth/create-access-control.js';
import { publicJwks } from '../../src/auth/push-token-signer.js';
import { createApp } from '../../src/http/create-app.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { openTestService, type TestService } from '../helpers/engines.js';
import { pushQueue, startSink, type Sink } from '../helpers/push-sink.js';
import { queuePath } from '../http/harness.js';

describe('signed push delivery', () => {
  let t: TestService | undefined;
  let sink: Sink | undefined;
  afterEach(async () => {
    await t?.close();
    await sink?.close();
    t = undefined;
    sink = undefined;
  });

  it('signs each request with the local issuer key (JWKS), and our REST API refuses the token when a handler replays it', async () => {
    sink = await startSink();
    t = await openTestService('postgres', serviceConfig([pushQueue('h', `${sink.url}/hooks`), pullQueue('p')]));
    await t.service.getQueue('h').add({ url: '/run?x=1', payload: 'p' });
    await sink.waitFor(1);
    const authorization = sink.requests[0]!.headers.authorization!;
    expect(authorization).toMatch(/^Bearer /);
    const token = authorization.slice('Bearer '.length);

    // What a handler does (docs/push-queues.md): verify against the JWKS, issuer and its own URL.
    const jwks = createLocalJWKSet((await publicJwks(t.service.authStore)) as never);
    const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer: 'urn:taskqueue:local', audience: `${sink.url}/hooks/run` });
    expect(payload).toMatchObject({ email: 'taskqueue@local', sub: 'taskqueue@local' });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'JWT' });
    expect(payload.exp! - payload.iat!).toBe(300);

    // The replay: the same token against our own REST API is refused.
    const accessControl = createAccessControl(authSettingsFromEnvironment({ TASKQUEUE_ADMINS: 'admin@example.com' }), { store: t.service.authStore });
    const app = createApp({ service: t.service, accessControl });
    const replayed = await app.request(`${queuePath('p')}/tasks`, { headers: { authorization } });
    expect(replayed.status).toBe(401);
    // While a token the local issuer minted for the API is accepted.
    const minted = await accessControl.localIssuer!.mint({ email: 'admin@example.com' });
    const accepted = await app.request(`${queuePath('p')}/tasks`, { headers: { authorization: `Bearer ${minted.accessToken}` } });
    expect(accepted.status).toBe(200);
  });

  it("keeps the task's own Authorization header, and sends none with signing off", async () => {
    sink = await startSink();
    t = await openTestService('postgres', serviceConfig([pushQueue('h', sink.url)]));
    await t.service.getQueue('h').add({ headers: { Authorization: 'Basic abc' } });
    await sink.waitFor(1);
    expect(sink.requests[0]!.headers.authorization).toBe('Basic abc');
    await t.close();
    t = await openTestService('postgres', serviceConfig([pushQueue('h', sink.url)]), { open: { pushSigning: false } });
    await t.service.getQueue('h').add({ payload: 'x' });
    await sink.waitFor(2);
    expect(sink.requests[1]!.headers.authorization).toBeUndefined();
  });
});
