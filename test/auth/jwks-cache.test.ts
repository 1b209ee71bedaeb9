import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestCredentials } from '../../src/auth/access-control.js';
import { DEFAULT_AUTH_SETTINGS } from '../../src/auth/auth-settings.js';
import { createAccessControl, type ServiceAccessControl } from '../../src/auth/create-access-control.js';
import { TASKQUEUE_SCOPE } from '../../src/auth/scopes.js';
import { pullQueue } from '../helpers/configs.js';
import { outcomeOf } from './auth-outcome.js';
import { FakeIdentityProvider, type FakeKey } from './fake-identity-provider.js';

/**
 * The JWKS cache (RFC 8725 practice, reliability notes §2.2): keys are
 * fetched once and reused; an unknown kid refetches at most once per
 * cooldown; a rotated-in key is picked up by that refetch; a broken
 * endpoint gives 503 (never access) while cached keys keep working.
 */

const EMAIL = 'alice@example.com';
const QUEUE = pullQueue('q', { acl: { userEmails: [EMAIL], writerEmails: [] } });

let idp: FakeIdentityProvider;
let key: FakeKey;

beforeEach(async () => {
  idp = await FakeIdentityProvider.start();
  key = await idp.newKey('ES256');
});

afterEach(async () => idp.close());

function controlFor(cooldownMs: number, timeoutMs = 2000): ServiceAccessControl {
  return createAccessControl({
    ...DEFAULT_AUTH_SETTINGS,
    localIssuer: null,
    issuers: [
      {
        issuer: idp.issuer,
        audiences: ['taskqueue'],
        algorithms: ['ES256'],
        keys: { kind: 'remote', url: idp.jwksUrl, cacheMaxAgeMs: 600_000, cooldownMs, timeoutMs },
        clockToleranceSeconds: 5,
        typ: null,
      },
    ],
  });
}

async function credentials(signer: FakeKey): Promise<RequestCredentials> {
  const token = await idp.sign(signer, { aud: 'taskqueue', email: EMAIL, scope: TASKQUEUE_SCOPE });
  return { authorization: `Bearer ${token}`, oauthToken: undefined, apiKey: undefined };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('JWKS cache', () => {
  it('fetches the key set once for many verifications', async () => {
    const control = controlFor(30_000);
    for (let i = 0; i < 20; i++) await control.check(await credentials(key), QUEUE, 'task.lease');
    expect(idp.jwksFetches).toBe(1);
  });

  it('refetches at most once per cooldown, however many unknown kids arrive', async () => {
    const control = controlFor(30_000);
    await control.check(await credentials(key), QUEUE, 'task.lease');
    const strangers = await Promise.all(Array.from({ length: 5 }, () => idp.newKey('ES256', { publish: false })));
    for (let i = 0; i < 25; i++) {
      const outcome = await outcomeOf(
        control.check(await credentials(strangers[i % 5] as FakeKey), QUEUE, 'task.lease'),
      );
      expect(outcome.status).toBe(401);
    }
    expect(idp.jwksFetches).toBe(1);
  });

  it('accepts a rotated-in key after one refetch, once the cooldown has passed', async () => {
    const control = controlFor(1000);
    const next = await idp.newKey('ES256', { publish: false });
    await control.check(await credentials(key), QUEUE, 'task.lease');
    idp.published.push(next);
    // Inside the cooldown the new kid is not fetched for.
    expect((await outcomeOf(control.check(await credentials(next), QUEUE, 'task.lease'))).status).toBe(401);
    expect(idp.jwksFetches).toBe(1);
    await sleep(1100);
    await expect(control.check(await credentials(next), QUEUE, 'task.lease')).resolves.toMatchObject({
      principal: { email: EMAIL },
    });
    expect(idp.jwksFetches).toBe(2);
    // The old key still verifies: it is still published.
    await control.check(await credentials(key), QUEUE, 'task.lease');
  });

  it('keeps cached keys working while the endpoint is down, and answers 503 for keys it cannot fetch', async () => {
    const control = controlFor(0);
    await control.check(await credentials(key), QUEUE, 'task.lease');
    idp.jwksMode = 'down';
    await control.check(await credentials(key), QUEUE, 'task.lease');
    const next = await idp.newKey('ES256');
    expect(await outcomeOf(control.check(await credentials(next), QUEUE, 'task.lease'))).toEqual({
      status: 503,
      wwwAuthenticate: null,
      reason: null,
    });
    expect(idp.jwksFetches).toBe(2);
  });

  it('does not hammer a failing endpoint: after a failure, fetches wait out a backoff', async () => {
    const control = controlFor(1000);
    idp.jwksMode = 'down';
    for (let i = 0; i < 10; i++) {
      expect((await outcomeOf(control.check(await credentials(key), QUEUE, 'task.lease'))).status).toBe(503);
    }
    expect(idp.jwksFetches).toBe(1);
    idp.jwksMode = 'ok';
    await sleep(1100);
    await control.check(await credentials(key), QUEUE, 'task.lease');
    expect(idp.jwksFetches).toBe(2);
  });

  it.each(['junk', 'huge'] as const)('answers 503 when the endpoint sends %s', async (mode) => {
    idp.jwksMode = mode;
    expect((await outcomeOf(controlFor(0).check(await credentials(key), QUEUE, 'task.lease'))).status).toBe(503);
  });

  it('answers 503 within the timeout when the endpoint hangs', async () => {
    idp.jwksMode = 'hang';
    const started = Date.now();
    expect((await outcomeOf(controlFor(0, 300).check(await credentials(key), QUEUE, 'task.lease'))).status).toBe(503);
    // Without the timeout the check would wait for the test's own timeout; the bound leaves room for a busy machine.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
