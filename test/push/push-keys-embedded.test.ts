import { createLocalJWKSet, createRemoteJWKSet, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { pushKeysHandler, pushTokenJwks } from '../../src/index.js';
import { listen } from '../http/harness.js';
import { usePushFixture } from './push-fixture.js';

/**
 * An application that embeds the library and dispatches signs its pushes;
 * it publishes the keys that verify them with what the package exports.
 */
describe('push keys for an embedding application', () => {
  const push = usePushFixture();
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves the JWKS and an OpenID discovery document that verify the tokens it signed', async () => {
    const { t, sink, queue } = await push.start('postgres');
    await queue.add({ url: '/run', payload: 'p' });
    await sink.waitFor(1);
    const token = sink.requests[0]!.headers.authorization!.replace(/^Bearer /, '');

    // The embedding app's own server, as docs/push-queues.md shows it.
    const app = new Hono();
    const keys = pushKeysHandler(t.service);
    app.get('/.well-known/*', (c) => keys(c.req.raw));
    server = await listen(app);

    const discovery = await fetch(`${server.url}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(discovery.headers.get('cache-control')).toBe('public, max-age=300');
    const document = (await discovery.json()) as { issuer: string; jwks_uri: string };
    expect(document).toMatchObject({ issuer: 'urn:taskqueue:local', jwks_uri: `${server.url}/.well-known/jwks.json` });

    // A handler verifying as the docs say, from the published URL.
    const remote = createRemoteJWKSet(new URL(document.jwks_uri));
    const { payload } = await jwtVerify(token, remote, {
      issuer: document.issuer,
      audience: `${sink.url}/run`,
      algorithms: ['ES256'],
    });
    expect(payload.email).toBe('taskqueue@local');
    // The document alone, for frameworks without Fetch API handlers.
    await jwtVerify(token, createLocalJWKSet((await pushTokenJwks(t.service)) as never), {
      audience: `${sink.url}/run`,
    });

    expect((await fetch(`${server.url}/.well-known/other`)).status).toBe(404);
    expect((await keys(new Request('http://app.test/.well-known/jwks.json', { method: 'POST' }))).status).toBe(405);
    const custom = await pushKeysHandler(t.service, { issuer: 'https://app.test' })(
      new Request('http://app.test/keys/openid-configuration'),
    );
    expect(await custom.json()).toMatchObject({
      issuer: 'https://app.test',
      jwks_uri: 'http://app.test/keys/jwks.json',
    });
  });
});
