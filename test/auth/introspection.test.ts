import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestCredentials } from '../../src/auth/access-control.js';
import { DEFAULT_AUTH_SETTINGS } from '../../src/auth/auth-settings.js';
import { createAccessControl, type ServiceAccessControl } from '../../src/auth/create-access-control.js';
import type { IntrospectionSettings } from '../../src/auth/introspection-verifier.js';
import { TASKQUEUE_SCOPE } from '../../src/auth/scopes.js';
import { pullQueue } from '../helpers/configs.js';
import { outcomeOf } from './auth-outcome.js';
import { FakeIdentityProvider } from './fake-identity-provider.js';

/** RFC 7662 introspection of opaque tokens, against the fake provider's endpoint. */

const EMAIL = 'alice@example.com';
const QUEUE = pullQueue('q', { acl: { userEmails: [EMAIL], writerEmails: [EMAIL] } });

let idp: FakeIdentityProvider;
let clock: number;

beforeEach(async () => {
  idp = await FakeIdentityProvider.start();
  clock = Date.now();
});

afterEach(async () => idp.close());

function controlWith(overrides: Partial<IntrospectionSettings> = {}): ServiceAccessControl {
  return createAccessControl(
    {
      ...DEFAULT_AUTH_SETTINGS,
      localIssuer: null,
      introspection: {
        url: idp.introspectionUrl,
        clientId: 'task-queue/api',
        clientSecret: 's3cret:x',
        audiences: ['taskqueue'],
        issuer: null,
        // An upper bound only: the fake provider answers at once, but a busy
        // 2-core machine has made a round trip take over 500 ms.
        timeoutMs: 30_000,
        maxCacheSeconds: 3600,
        negativeCacheSeconds: 10,
        cacheEntries: 10_000,
        clockToleranceSeconds: 0,
        ...overrides,
      },
    },
    { now: () => clock },
  );
}

function bearer(token: string): RequestCredentials {
  return { authorization: `Bearer ${token}`, oauthToken: undefined, apiKey: undefined };
}

function active(overrides: Record<string, unknown> = {}) {
  return {
    active: true,
    aud: 'taskqueue',
    email: EMAIL,
    scope: TASKQUEUE_SCOPE,
    exp: Math.floor(clock / 1000) + 300,
    ...overrides,
  };
}

describe('token introspection', () => {
  it('accepts an active token and asks the endpoint once, as RFC 7662 describes', async () => {
    idp.introspection.set('opaque-1', active());
    const control = controlWith();
    await expect(control.check(bearer('opaque-1'), QUEUE, 'task.lease')).resolves.toMatchObject({
      principal: { email: EMAIL },
    });
    await control.check(bearer('opaque-1'), QUEUE, 'task.insert');
    expect(idp.introspectionRequests).toHaveLength(1);
    const request = idp.introspectionRequests[0];
    expect(request?.body.get('token')).toBe('opaque-1');
    expect(request?.body.get('token_type_hint')).toBe('access_token');
    // RFC 6749 §2.3.1: form-encoded, then base64.
    expect(Buffer.from(request?.authorization?.replace('Basic ', '') ?? '', 'base64').toString()).toBe(
      'task-queue%2Fapi:s3cret%3Ax',
    );
  });

  it('refuses an inactive token with 401 and remembers that briefly', async () => {
    const control = controlWith();
    for (let i = 0; i < 3; i++) {
      expect(await outcomeOf(control.check(bearer('revoked'), QUEUE, 'task.lease'))).toMatchObject({
        status: 401,
        wwwAuthenticate: expect.stringContaining('error="invalid_token"'),
      });
    }
    expect(idp.introspectionRequests).toHaveLength(1);
    clock += 11_000;
    await outcomeOf(control.check(bearer('revoked'), QUEUE, 'task.lease'));
    expect(idp.introspectionRequests).toHaveLength(2);
  });

  it('caches an active answer for the token lifetime only', async () => {
    idp.introspection.set('short', active({ exp: Math.floor(clock / 1000) + 60 }));
    const control = controlWith();
    await control.check(bearer('short'), QUEUE, 'task.lease');
    clock += 59_000;
    await control.check(bearer('short'), QUEUE, 'task.lease');
    expect(idp.introspectionRequests).toHaveLength(1);
    clock += 2000;
    // Past exp: the endpoint is asked again, and the expired answer refused even though it still says active.
    expect((await outcomeOf(control.check(bearer('short'), QUEUE, 'task.lease'))).status).toBe(401);
    expect(idp.introspectionRequests).toHaveLength(2);
  });

  it('caps caching at the configured seconds, so revocation takes effect', async () => {
    idp.introspection.set('long', active({ exp: Math.floor(clock / 1000) + 3600 }));
    const control = controlWith({ maxCacheSeconds: 30 });
    await control.check(bearer('long'), QUEUE, 'task.lease');
    clock += 31_000;
    idp.introspection.set('long', { active: false });
    expect((await outcomeOf(control.check(bearer('long'), QUEUE, 'task.lease'))).status).toBe(401);
    expect(idp.introspectionRequests).toHaveLength(2);
  });

  it('keeps a bounded number of answers (least recently used go)', async () => {
    for (const token of ['a1', 'a2', 'a3']) idp.introspection.set(token, active());
    const control = controlWith({ cacheEntries: 2 });
    for (const token of ['a1', 'a2', 'a3', 'a1']) await control.check(bearer(token), QUEUE, 'task.lease');
    expect(idp.introspectionRequests.map((r) => r.body.get('token'))).toEqual(['a1', 'a2', 'a3', 'a1']);
  });

  it('answers 403 insufficient_scope to an active token without a taskqueue scope', async () => {
    idp.introspection.set('no-scope', active({ scope: 'openid profile' }));
    expect(await outcomeOf(controlWith().check(bearer('no-scope'), QUEUE, 'task.lease'))).toMatchObject({
      status: 403,
      wwwAuthenticate: expect.stringContaining('error="insufficient_scope"'),
    });
  });

  it('refuses an answer for another audience with 401', async () => {
    idp.introspection.set('other-aud', active({ aud: 'another-api' }));
    expect((await outcomeOf(controlWith().check(bearer('other-aud'), QUEUE, 'task.lease'))).status).toBe(401);
    idp.introspection.set('no-aud', active({ aud: undefined }));
    expect((await outcomeOf(controlWith().check(bearer('no-aud'), QUEUE, 'task.lease'))).status).toBe(401);
  });

  it('takes the user from username when it is an e-mail, and checks iss when configured', async () => {
    idp.introspection.set('by-username', active({ email: undefined, username: EMAIL, iss: 'https://as.example' }));
    await expect(
      controlWith({ issuer: 'https://as.example' }).check(bearer('by-username'), QUEUE, 'task.lease'),
    ).resolves.toBeTruthy();
    expect(
      (
        await outcomeOf(
          controlWith({ issuer: 'https://other.example' }).check(bearer('by-username'), QUEUE, 'task.lease'),
        )
      ).status,
    ).toBe(401);
    idp.introspection.set('nobody', active({ email: undefined, username: 'service-account-7' }));
    expect(await outcomeOf(controlWith().check(bearer('nobody'), QUEUE, 'task.lease'))).toMatchObject({
      status: 401,
      wwwAuthenticate: expect.stringContaining('no e-mail address'),
    });
  });

  it('answers 503, never access, when the endpoint fails, and does not cache that', async () => {
    idp.introspection.set('t', 'error');
    const control = controlWith();
    expect(await outcomeOf(control.check(bearer('t'), QUEUE, 'task.lease'))).toEqual({
      status: 503,
      wwwAuthenticate: null,
      reason: null,
    });
    idp.introspection.set('t', active());
    await expect(control.check(bearer('t'), QUEUE, 'task.lease')).resolves.toBeTruthy();
  });

  it('answers 503, never access, when the endpoint hangs past the timeout, and asks again next time', async () => {
    idp.introspection.set('t', 'hang');
    // The timeout is what is under test here, so it is short; the endpoint never answers, however busy the machine.
    const control = controlWith({ timeoutMs: 200 });
    expect(await outcomeOf(control.check(bearer('t'), QUEUE, 'task.lease'))).toEqual({
      status: 503,
      wwwAuthenticate: null,
      reason: null,
    });
    idp.introspection.set('t', active());
    // Not cached: the next check asks the endpoint again. (Whether its answer beats
    // 200 ms depends on the machine's load; the test above checks access after a failure.)
    await outcomeOf(control.check(bearer('t'), QUEUE, 'task.lease'));
    expect(idp.introspectionRequests.map((request) => request.body.get('token'))).toEqual(['t', 't']);
  });

  it('answers 503 to an answer without a boolean active', async () => {
    idp.introspection.set('weird', { active: 'yes', email: EMAIL });
    expect((await outcomeOf(controlWith().check(bearer('weird'), QUEUE, 'task.lease'))).status).toBe(503);
  });

  it('shares one request among concurrent checks of the same token', async () => {
    idp.introspection.set('busy', active());
    const control = controlWith();
    await Promise.all(Array.from({ length: 10 }, () => control.check(bearer('busy'), QUEUE, 'task.lease')));
    expect(idp.introspectionRequests).toHaveLength(1);
  });

  it('does not send JWTs of configured issuers to introspection', async () => {
    const key = await idp.newKey('ES256');
    const control = createAccessControl({
      ...DEFAULT_AUTH_SETTINGS,
      localIssuer: null,
      issuers: [
        {
          issuer: idp.issuer,
          audiences: ['taskqueue'],
          algorithms: ['ES256'],
          keys: { kind: 'static', keys: [key.publicJwk] },
          clockToleranceSeconds: 0,
          typ: null,
        },
      ],
      introspection: {
        url: idp.introspectionUrl,
        clientId: 'c',
        clientSecret: 's',
        audiences: [],
        issuer: null,
        timeoutMs: 30_000,
        maxCacheSeconds: 60,
        negativeCacheSeconds: 10,
        cacheEntries: 100,
        clockToleranceSeconds: 0,
      },
    });
    const bad = await idp.sign(key, { aud: 'elsewhere', email: EMAIL, scope: TASKQUEUE_SCOPE });
    expect((await outcomeOf(control.check(bearer(bad), QUEUE, 'task.lease'))).status).toBe(401);
    expect(idp.introspectionRequests).toHaveLength(0);
  });
});
