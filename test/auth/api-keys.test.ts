import { describe, expect, it } from 'vitest';
import { ApiKeyRegistry, hashApiKey } from '../../src/auth/api-keys.js';
import { createAccessControl } from '../../src/auth/create-access-control.js';
import { isQueueError } from '../../src/core/errors.js';
import { pullQueue } from '../helpers/configs.js';
import { outcomeOf } from './auth-outcome.js';
import { createTestTokenIssuer, testAuthSettings } from './test-token-issuer.js';

const KEYS = [
  { application: 'billing', sha256: hashApiKey('key-of-billing') },
  { application: 'reports', sha256: hashApiKey('key-of-reports') },
];

describe('API keys', () => {
  it('name the application of a known key', () => {
    const registry = new ApiKeyRegistry(KEYS);
    expect(registry.identify('key-of-reports')).toBe('reports');
    expect(registry.identify(undefined)).toBeUndefined();
  });

  it('refuse an unknown key with 400 keyInvalid, when keys are configured', () => {
    let thrown: unknown;
    try {
      new ApiKeyRegistry(KEYS).identify('key-of-nobody');
    } catch (error) {
      thrown = error;
    }
    expect(isQueueError(thrown, 'INVALID_REQUEST')).toBe(true);
    expect((thrown as { details: { reason: string } }).details.reason).toBe('keyInvalid');
    expect((thrown as Error).message).not.toContain('key-of-nobody');
  });

  it('are not checked when none are configured', () => {
    expect(new ApiKeyRegistry([]).identify('anything')).toBeUndefined();
  });

  it('identify the application beside a token, and never grant access alone', async () => {
    const issuer = await createTestTokenIssuer();
    const control = createAccessControl(testAuthSettings(issuer, { apiKeys: KEYS }));
    const queue = pullQueue('q', { acl: { userEmails: ['u@example.com'], writerEmails: [] } });
    const withToken = { ...(await issuer.credentials('u@example.com')), apiKey: 'key-of-billing' };
    await expect(control.check(withToken, queue, 'task.lease')).resolves.toMatchObject({
      principal: { email: 'u@example.com', application: 'billing' },
    });
    expect(
      await outcomeOf(
        control.check(
          { authorization: undefined, oauthToken: undefined, apiKey: 'key-of-billing' },
          queue,
          'task.lease',
        ),
      ),
    ).toEqual({
      status: 401,
      wwwAuthenticate: 'Bearer realm="taskqueue"',
      reason: 'required',
    });
    expect((await outcomeOf(control.check({ ...withToken, apiKey: 'wrong' }, queue, 'task.lease'))).status).toBe(400);
    // A key does not widen the ACL either.
    const stranger = { ...(await issuer.credentials('s@example.com')), apiKey: 'key-of-billing' };
    expect((await outcomeOf(control.check(stranger, queue, 'task.lease'))).status).toBe(403);
  });
});
