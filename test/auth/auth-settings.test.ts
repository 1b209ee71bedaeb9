import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { authSettingsFromEnvironment, DEFAULT_AUTH_SETTINGS } from '../../src/auth/auth-settings.js';
import { AUTH_OFF_WARNING, createAccessControl } from '../../src/auth/create-access-control.js';
import { TASKQUEUE_CONSUMER_SCOPE, TASKQUEUE_SCOPE } from '../../src/auth/scopes.js';
import { isQueueError } from '../../src/core/errors.js';

/** The error a setting is refused with (its message), or a failure when it is accepted. */
function refusal(env: Record<string, string>): string {
  try {
    authSettingsFromEnvironment(env);
  } catch (error) {
    if (isQueueError(error, 'INVALID_CONFIG')) return error.message;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

const issuer = (fields: Record<string, unknown>) =>
  JSON.stringify([
    {
      issuer: 'https://idp.example',
      audience: 'taskqueue',
      jwksUrl: 'https://idp.example/jwks',
      algorithms: ['RS256'],
      ...fields,
    },
  ]);

const { publicKey: rsaPem, privateKey: rsaPrivatePem } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

describe('authSettingsFromEnvironment', () => {
  it('turns auth on, with the local issuer, when nothing is set', () => {
    expect(authSettingsFromEnvironment({})).toEqual(DEFAULT_AUTH_SETTINGS);
    expect(authSettingsFromEnvironment({ TASKQUEUE_AUTH: ' ', TASKQUEUE_ADMINS: '' })).toEqual(DEFAULT_AUTH_SETTINGS);
  });

  it('turns auth off only on exactly "off"', () => {
    expect(authSettingsFromEnvironment({ TASKQUEUE_AUTH: 'off' }).enabled).toBe(false);
    for (const value of ['of', 'false', '0', 'OFF', 'no', 'disabled']) {
      expect(refusal({ TASKQUEUE_AUTH: value })).toContain('TASKQUEUE_AUTH');
    }
  });

  it('reads administrators, refusing anything that is not an e-mail', () => {
    expect(authSettingsFromEnvironment({ TASKQUEUE_ADMINS: 'a@example.com, b@example.com,' }).admins).toEqual([
      'a@example.com',
      'b@example.com',
    ]);
    expect(refusal({ TASKQUEUE_ADMINS: 'a@example.com b@example.com' })).toContain('TASKQUEUE_ADMINS');
  });

  it('reads JWT issuers with their defaults', () => {
    const [parsed] = authSettingsFromEnvironment({
      TASKQUEUE_JWT_ISSUERS: issuer({ audience: ['a', 'b'], typ: 'at+jwt' }),
    }).issuers;
    expect(parsed).toEqual({
      issuer: 'https://idp.example',
      audiences: ['a', 'b'],
      algorithms: ['RS256'],
      keys: {
        kind: 'remote',
        url: 'https://idp.example/jwks',
        cacheMaxAgeMs: 600_000,
        cooldownMs: 30_000,
        timeoutMs: 2000,
      },
      clockToleranceSeconds: 30,
      typ: 'at+jwt',
    });
    const tolerant = authSettingsFromEnvironment({
      TASKQUEUE_JWT_ISSUERS: issuer({}),
      TASKQUEUE_CLOCK_TOLERANCE_SECONDS: '5',
    });
    expect(tolerant.issuers[0]?.clockToleranceSeconds).toBe(5);
  });

  it('binds a static PEM key to the one algorithm that fits it', () => {
    const [parsed] = authSettingsFromEnvironment({
      TASKQUEUE_JWT_ISSUERS: issuer({
        jwksUrl: undefined,
        keys: [{ pem: rsaPem, kid: 'k1' }],
        algorithms: ['RS256', 'ES256'],
      }),
    }).issuers;
    expect(parsed?.keys).toMatchObject({ kind: 'static', keys: [{ kty: 'RSA', alg: 'RS256', kid: 'k1' }] });
  });

  it.each([
    ['not JSON', '[{', 'not valid JSON'],
    ['an object instead of an array', '{}', 'JSON array'],
    ['alg none', issuer({ algorithms: ['none'] }), '"none" is not allowed'],
    ['HS256', issuer({ algorithms: ['HS256'] }), '"HS256" is not allowed'],
    ['no algorithms', issuer({ algorithms: [] }), 'algorithms'],
    ['a misspelt field', issuer({ audiance: 'x' }), 'unknown field "audiance"'],
    ['no audience', issuer({ audience: undefined }), 'audience'],
    ['both jwksUrl and keys', issuer({ keys: [{ pem: rsaPem }] }), 'exactly one of'],
    ['neither jwksUrl nor keys', issuer({ jwksUrl: undefined }), 'exactly one of'],
    ['a plain-http JWKS off loopback', issuer({ jwksUrl: 'http://idp.example/jwks' }), 'https'],
    ['a private PEM key', issuer({ jwksUrl: undefined, keys: [{ pem: rsaPrivatePem }] }), 'private key'],
    [
      'a private JWK',
      issuer({
        jwksUrl: undefined,
        keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' }],
        algorithms: ['ES256'],
      }),
      'private key',
    ],
    ['a symmetric key', issuer({ jwksUrl: undefined, keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }), 'key type'],
    [
      'a key that fits two algorithms',
      issuer({ jwksUrl: undefined, keys: [{ pem: rsaPem }], algorithms: ['RS256', 'PS256'] }),
      'give it an "alg"',
    ],
    [
      'a key of another family',
      issuer({ jwksUrl: undefined, keys: [{ pem: rsaPem }], algorithms: ['ES256'] }),
      'fits none',
    ],
    ['a tolerance of ten minutes', issuer({ clockToleranceSeconds: 600 }), 'clockToleranceSeconds'],
    ['the same issuer twice', JSON.stringify([...JSON.parse(issuer({})), ...JSON.parse(issuer({}))]), 'listed twice'],
  ])('refuses an issuer with %s', (_name, json, message) => {
    expect(refusal({ TASKQUEUE_JWT_ISSUERS: json })).toContain(message);
  });

  it('reads introspection settings, requiring the URL and client credentials together', () => {
    const settings = authSettingsFromEnvironment({
      TASKQUEUE_INTROSPECTION_URL: 'https://as.example/introspect',
      TASKQUEUE_INTROSPECTION_CLIENT_ID: 'taskqueue',
      TASKQUEUE_INTROSPECTION_CLIENT_SECRET: 'secret',
      TASKQUEUE_INTROSPECTION_AUDIENCE: 'taskqueue, api',
      TASKQUEUE_INTROSPECTION_CACHE_SECONDS: '60',
    }).introspection;
    expect(settings).toMatchObject({
      audiences: ['taskqueue', 'api'],
      maxCacheSeconds: 60,
      timeoutMs: 2000,
      cacheEntries: 10_000,
      issuer: null,
    });
    expect(refusal({ TASKQUEUE_INTROSPECTION_URL: 'https://as.example/introspect' })).toContain(
      'TASKQUEUE_INTROSPECTION_CLIENT_ID',
    );
    expect(
      refusal({
        TASKQUEUE_INTROSPECTION_URL: 'ftp://as.example',
        TASKQUEUE_INTROSPECTION_CLIENT_ID: 'a',
        TASKQUEUE_INTROSPECTION_CLIENT_SECRET: 'b',
      }),
    ).toContain('https');
  });

  it('reads the local issuer settings, and refuses to leave no way in', () => {
    const local = authSettingsFromEnvironment({
      TASKQUEUE_LOCAL_ISSUER_NAME: 'urn:example',
      TASKQUEUE_TOKEN_TTL_SECONDS: '600',
      TASKQUEUE_TOKEN_MAX_TTL_SECONDS: '7200',
    }).localIssuer;
    expect(local).toMatchObject({
      issuer: 'urn:example',
      audience: 'taskqueue',
      defaultTtlSeconds: 600,
      maxTtlSeconds: 7200,
    });
    expect(refusal({ TASKQUEUE_TOKEN_TTL_SECONDS: '7200', TASKQUEUE_TOKEN_MAX_TTL_SECONDS: '3600' })).toContain(
      'TASKQUEUE_TOKEN_TTL_SECONDS',
    );
    expect(refusal({ TASKQUEUE_LOCAL_ISSUER: 'off' })).toContain('no token would ever be accepted');
    expect(
      authSettingsFromEnvironment({ TASKQUEUE_LOCAL_ISSUER: 'off', TASKQUEUE_AUTH: 'off' }).localIssuer,
    ).toBeNull();
    expect(
      authSettingsFromEnvironment({ TASKQUEUE_LOCAL_ISSUER: 'off', TASKQUEUE_JWT_ISSUERS: issuer({}) }).localIssuer,
    ).toBeNull();
    expect(refusal({ TASKQUEUE_JWT_ISSUERS: issuer({ issuer: 'urn:taskqueue:local' }) })).toContain(
      'TASKQUEUE_LOCAL_ISSUER_NAME',
    );
  });

  it('reads API keys as hashes, refusing a key given in clear without echoing it', () => {
    const digest = hashApiKey('AIza-secret');
    expect(authSettingsFromEnvironment({ TASKQUEUE_API_KEYS: `billing=${digest.toUpperCase()}` }).apiKeys).toEqual([
      { application: 'billing', sha256: digest },
    ]);
    const message = refusal({ TASKQUEUE_API_KEYS: 'billing=AIza-secret' });
    expect(message).toContain('SHA-256');
    expect(message).not.toContain('AIza-secret');
    expect(refusal({ TASKQUEUE_API_KEYS: 'AIza-secret' })).not.toContain('AIza-secret');
  });

  it('adds scope aliases to the defaults, only for the two taskqueue scopes', () => {
    const aliases = authSettingsFromEnvironment({
      TASKQUEUE_SCOPE_ALIASES: `tq=${TASKQUEUE_SCOPE}, tq.read=${TASKQUEUE_CONSUMER_SCOPE}`,
    }).scopeAliases;
    expect(aliases).toMatchObject({
      tq: TASKQUEUE_SCOPE,
      'tq.read': TASKQUEUE_CONSUMER_SCOPE,
      taskqueue: TASKQUEUE_SCOPE,
    });
    expect(refusal({ TASKQUEUE_SCOPE_ALIASES: 'admin=https://www.googleapis.com/auth/cloud-platform' })).toContain(
      'must stand for',
    );
  });
});

describe('createAccessControl with auth off', () => {
  it('lets everything through and warns loudly, once', async () => {
    const warnings: string[] = [];
    const control = createAccessControl(authSettingsFromEnvironment({ TASKQUEUE_AUTH: 'off' }), {
      warn: (m) => warnings.push(m),
    });
    expect(warnings).toEqual([AUTH_OFF_WARNING]);
    expect(control.open).toBe(true);
    expect(control.localIssuer).toBeNull();
    await expect(
      control.check({ authorization: undefined, oauthToken: undefined, apiKey: undefined }, null, 'task.delete'),
    ).resolves.toEqual({
      principal: null,
      mayReadAcl: true,
    });
  });

  it('needs the database when the local issuer is on', () => {
    expect(() => createAccessControl(DEFAULT_AUTH_SETTINGS)).toThrow(/deps.store/);
  });
});
