import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { SignJWT, exportSPKI, generateKeyPair, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestCredentials } from '../../src/auth/access-control.js';
import { DEFAULT_AUTH_SETTINGS } from '../../src/auth/auth-settings.js';
import { createAccessControl, type ServiceAccessControl } from '../../src/auth/create-access-control.js';
import type { JwtIssuerSettings } from '../../src/auth/jwt-issuer-settings.js';
import { TASKQUEUE_CONSUMER_SCOPE, TASKQUEUE_SCOPE } from '../../src/auth/scopes.js';
import { pullQueue } from '../helpers/configs.js';
import { outcomeOf, type AuthOutcome } from './auth-outcome.js';
import { FakeIdentityProvider, type FakeKey } from './fake-identity-provider.js';

/**
 * Issue 4's matrix of crafted tokens: each row is a request's credentials and
 * the status and WWW-Authenticate header it must get. The issuer is a fake
 * identity provider on loopback, trusted through its JWKS URL with RS256.
 */

const EMAIL = 'alice@example.com';
const QUEUE = pullQueue('q', { acl: { userEmails: [EMAIL], writerEmails: [EMAIL] } });
const BARE = 'Bearer realm="taskqueue"';
const INVALID_TOKEN = /^Bearer realm="taskqueue", error="invalid_token", error_description="[^"]+"$/;
const INVALID_REQUEST = /^Bearer realm="taskqueue", error="invalid_request", error_description="[^"]+"$/;
const BOTH_SCOPES = `Bearer realm="taskqueue", error="insufficient_scope", scope="${TASKQUEUE_SCOPE} ${TASKQUEUE_CONSUMER_SCOPE}"`;

let idp: FakeIdentityProvider;
let rsa: FakeKey;
let control: ServiceAccessControl;

beforeAll(async () => {
  idp = await FakeIdentityProvider.start();
  rsa = await idp.newKey('RS256');
  control = createAccessControl({ ...DEFAULT_AUTH_SETTINGS, localIssuer: null, issuers: [issuerSettings()] });
});

afterAll(async () => idp.close());

function issuerSettings(overrides: Partial<JwtIssuerSettings> = {}): JwtIssuerSettings {
  return {
    issuer: idp.issuer,
    audiences: ['taskqueue'],
    algorithms: ['RS256'],
    keys: { kind: 'remote', url: idp.jwksUrl, cacheMaxAgeMs: 600_000, cooldownMs: 30_000, timeoutMs: 2000 },
    clockToleranceSeconds: 30,
    typ: null,
    ...overrides,
  };
}

const now = () => Math.floor(Date.now() / 1000);

/** A valid access token's claims, overridable per row. */
function claims(overrides: Record<string, unknown> = {}) {
  return { aud: 'taskqueue', sub: '1234', email: EMAIL, email_verified: true, scope: TASKQUEUE_SCOPE, ...overrides };
}

function header(token: string): RequestCredentials {
  return { authorization: `Bearer ${token}`, oauthToken: undefined, apiKey: undefined };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

interface Row {
  readonly name: string;
  readonly credentials: () => Promise<RequestCredentials>;
  readonly action?: 'task.lease' | 'task.insert';
  /** For refusals: words the error_description must contain (so each row fails for its own reason). */
  readonly expected: { status: number; header: string | RegExp | null; why?: string };
}

const ROWS: Row[] = [
  {
    name: 'a valid RS256 token',
    credentials: async () => header(await idp.sign(rsa, claims())),
    expected: { status: 200, header: null },
  },
  {
    name: 'alg none (unsigned)',
    credentials: async () =>
      header(
        `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: idp.issuer, iat: now(), exp: now() + 600, ...claims() })}.`,
      ),
    expected: { status: 401, header: INVALID_TOKEN, why: 'the signing algorithm is not allowed' },
  },
  {
    name: 'HS256 signed with the RSA public key as the secret (CVE-2015-9235)',
    credentials: async () => {
      const pem = createPublicKey({ key: rsa.publicJwk as JsonWebKey, format: 'jwk' }).export({
        type: 'spki',
        format: 'pem',
      }) as string;
      const token = await new SignJWT({ iss: idp.issuer, iat: now(), exp: now() + 600, ...claims() })
        .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
        .sign(new TextEncoder().encode(pem));
      return header(token);
    },
    expected: { status: 401, header: INVALID_TOKEN, why: 'the signing algorithm is not allowed' },
  },
  {
    name: 'RS256 header with an empty signature',
    credentials: async () => {
      const [h, p] = (await idp.sign(rsa, claims())).split('.');
      return header(`${h}.${p}.`);
    },
    expected: { status: 401, header: INVALID_TOKEN, why: 'signature verification failed' },
  },
  {
    name: 'wrong aud',
    credentials: async () => header(await idp.sign(rsa, claims({ aud: 'another-api' }))),
    expected: { status: 401, header: INVALID_TOKEN, why: 'unexpected aud claim value' },
  },
  {
    name: 'wrong iss (signed with a trusted key, but claiming another issuer)',
    credentials: async () => header(await idp.sign(rsa, claims({ iss: 'https://evil.example' }))),
    expected: { status: 401, header: INVALID_TOKEN, why: 'not issued by a trusted issuer' },
  },
  {
    name: 'expired',
    credentials: async () => header(await idp.sign(rsa, claims({ iat: now() - 7200, exp: now() - 3600 }))),
    expected: { status: 401, header: INVALID_TOKEN, why: 'exp claim timestamp check failed' },
  },
  {
    name: 'expired 10 s ago: inside the 30 s clock tolerance',
    credentials: async () => header(await idp.sign(rsa, claims({ iat: now() - 600, exp: now() - 10 }))),
    expected: { status: 200, header: null },
  },
  {
    name: 'not yet valid (nbf in an hour)',
    credentials: async () => header(await idp.sign(rsa, claims({ nbf: now() + 3600 }))),
    expected: { status: 401, header: INVALID_TOKEN, why: 'nbf claim timestamp check failed' },
  },
  {
    name: 'missing exp',
    credentials: async () => header(await idp.sign(rsa, claims({ exp: undefined }))),
    expected: { status: 401, header: INVALID_TOKEN, why: 'missing required exp claim' },
  },
  {
    name: 'bad signature (payload changed after signing)',
    credentials: async () => {
      const [h, , s] = (await idp.sign(rsa, claims())).split('.');
      return header(
        `${h}.${b64({ iss: idp.issuer, iat: now(), exp: now() + 600, ...claims({ email: 'mallory@example.com' }) })}.${s}`,
      );
    },
    expected: { status: 401, header: INVALID_TOKEN, why: 'signature verification failed' },
  },
  {
    name: 'signed by an unpublished key that reuses a published kid',
    credentials: async () =>
      header(await idp.sign({ ...(await idp.newKey('RS256', { publish: false })), kid: rsa.kid }, claims())),
    expected: { status: 401, header: INVALID_TOKEN, why: 'signature verification failed' },
  },
  {
    name: 'unknown kid',
    credentials: async () => header(await idp.sign(await idp.newKey('RS256', { publish: false }), claims())),
    expected: { status: 401, header: INVALID_TOKEN, why: 'no key of the issuer matches the token' },
  },
  {
    name: 'attacker key embedded in the jwk header (never trusted)',
    credentials: async () => {
      const evil = await idp.newKey('RS256', { publish: false });
      return header(await idp.sign(evil, claims(), { jwk: evil.publicJwk, kid: undefined }));
    },
    expected: { status: 401, header: INVALID_TOKEN },
  },
  {
    name: 'an ID token of the same provider for another client (wrong audience)',
    credentials: async () =>
      header(
        await idp.sign(
          rsa,
          claims({
            aud: 'web-client-id.apps.example',
            azp: 'web-client-id.apps.example',
            nonce: 'n',
            scope: undefined,
          }),
        ),
      ),
    expected: { status: 401, header: INVALID_TOKEN, why: 'unexpected aud claim value' },
  },
  {
    name: 'email_verified false',
    credentials: async () => header(await idp.sign(rsa, claims({ email_verified: false }))),
    expected: { status: 401, header: INVALID_TOKEN, why: 'not verified' },
  },
  {
    name: 'no email claim',
    credentials: async () => header(await idp.sign(rsa, claims({ email: undefined }))),
    expected: { status: 401, header: INVALID_TOKEN, why: 'no e-mail address' },
  },
  {
    name: 'not a JWT at all',
    credentials: async () => header('opaque-token-nobody-issued'),
    expected: { status: 401, header: INVALID_TOKEN },
  },
  {
    name: 'lowercase scheme "bearer"',
    credentials: async () => ({
      authorization: `bearer ${await idp.sign(rsa, claims())}`,
      oauthToken: undefined,
      apiKey: undefined,
    }),
    expected: { status: 200, header: null },
  },
  {
    name: 'upper-case scheme "BEARER"',
    credentials: async () => ({
      authorization: `BEARER ${await idp.sign(rsa, claims())}`,
      oauthToken: undefined,
      apiKey: undefined,
    }),
    expected: { status: 200, header: null },
  },
  {
    name: 'oauth_token query parameter alone',
    credentials: async () => ({
      authorization: undefined,
      oauthToken: await idp.sign(rsa, claims()),
      apiKey: undefined,
    }),
    expected: { status: 200, header: null },
  },
  {
    name: 'token both in the header and as oauth_token',
    credentials: async () => {
      const token = await idp.sign(rsa, claims());
      return { authorization: `Bearer ${token}`, oauthToken: token, apiKey: undefined };
    },
    expected: { status: 400, header: INVALID_REQUEST, why: 'both in the Authorization header and as oauth_token' },
  },
  {
    name: 'Bearer scheme without a token',
    credentials: async () => ({ authorization: 'Bearer', oauthToken: undefined, apiKey: undefined }),
    expected: { status: 400, header: INVALID_REQUEST },
  },
  {
    name: 'token with a blank inside',
    credentials: async () => ({ authorization: 'Bearer abc def', oauthToken: undefined, apiKey: undefined }),
    expected: { status: 400, header: INVALID_REQUEST },
  },
  {
    name: 'no credentials',
    credentials: async () => ({ authorization: undefined, oauthToken: undefined, apiKey: undefined }),
    expected: { status: 401, header: BARE },
  },
  {
    name: 'Basic credentials only (no bearer token)',
    credentials: async () => ({ authorization: 'Basic YWxpY2U6c2VjcmV0', oauthToken: undefined, apiKey: undefined }),
    expected: { status: 401, header: BARE },
  },
  {
    name: 'an API key alone',
    credentials: async () => ({ authorization: undefined, oauthToken: undefined, apiKey: 'AIzaSomething' }),
    expected: { status: 401, header: BARE },
  },
  {
    name: 'neither taskqueue scope',
    credentials: async () => header(await idp.sign(rsa, claims({ scope: 'openid email' }))),
    expected: { status: 403, header: BOTH_SCOPES },
  },
  {
    name: 'consumer scope inserting',
    credentials: async () => header(await idp.sign(rsa, claims({ scope: TASKQUEUE_CONSUMER_SCOPE }))),
    action: 'task.insert',
    expected: {
      status: 403,
      header: `Bearer realm="taskqueue", error="insufficient_scope", scope="${TASKQUEUE_SCOPE}"`,
    },
  },
  {
    name: 'consumer scope leasing',
    credentials: async () => header(await idp.sign(rsa, claims({ scope: TASKQUEUE_CONSUMER_SCOPE }))),
    expected: { status: 200, header: null },
  },
  {
    name: 'scopes as an scp array with a short alias',
    credentials: async () => header(await idp.sign(rsa, claims({ scope: undefined, scp: ['openid', 'taskqueue'] }))),
    action: 'task.insert',
    expected: { status: 200, header: null },
  },
  {
    name: 'a valid token of a caller outside the ACL',
    credentials: async () => header(await idp.sign(rsa, claims({ email: 'bob@example.com' }))),
    expected: { status: 403, header: null },
  },
];

describe('crafted token matrix', () => {
  it.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const outcome: AuthOutcome = await outcomeOf(
      control.check(await row.credentials(), QUEUE, row.action ?? 'task.lease'),
    );
    expect(outcome.status).toBe(row.expected.status);
    if (row.expected.header === null) expect(outcome.wwwAuthenticate).toBeNull();
    else if (typeof row.expected.header === 'string') expect(outcome.wwwAuthenticate).toBe(row.expected.header);
    else expect(outcome.wwwAuthenticate).toMatch(row.expected.header);
    if (row.expected.why !== undefined) expect(outcome.wwwAuthenticate).toContain(row.expected.why);
  });

  it('never puts the token into the error', async () => {
    const token = await idp.sign(rsa, claims({ aud: 'another-api' }));
    const error = (await control.check(header(token), QUEUE, 'task.lease').catch((e: unknown) => e)) as Error;
    expect(JSON.stringify({ message: error.message, details: (error as { details?: unknown }).details })).not.toContain(
      token.split('.')[2],
    );
  });

  it('gives an ES256 token to an RS256-only issuer 401', async () => {
    const ec = await idp.newKey('ES256');
    expect(await outcomeOf(control.check(header(await idp.sign(ec, claims())), QUEUE, 'task.lease'))).toMatchObject({
      status: 401,
    });
  });

  it('requires the configured typ when one is set (RFC 9068 at+jwt)', async () => {
    const strict = createAccessControl({
      ...DEFAULT_AUTH_SETTINGS,
      localIssuer: null,
      issuers: [issuerSettings({ typ: 'at+jwt' })],
    });
    expect(await outcomeOf(strict.check(header(await idp.sign(rsa, claims())), QUEUE, 'task.lease'))).toMatchObject({
      status: 401,
    });
    const accessToken = await idp.sign(rsa, claims(), { typ: 'at+jwt' });
    expect(await outcomeOf(strict.check(header(accessToken), QUEUE, 'task.lease'))).toMatchObject({ status: 200 });
  });

  it('verifies with static PEM keys as well as a JWKS', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const pemControl = createAccessControl({
      ...DEFAULT_AUTH_SETTINGS,
      localIssuer: null,
      issuers: [
        {
          ...issuerSettings({ issuer: 'pem-issuer', algorithms: ['ES256'] }),
          keys: {
            kind: 'static',
            keys: [
              { ...(createPublicKey(await exportSPKI(publicKey)).export({ format: 'jwk' }) as JWK), alg: 'ES256' },
            ],
          },
        },
      ],
    });
    const token = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('pem-issuer')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    await expect(pemControl.check(header(token), QUEUE, 'task.lease')).resolves.toMatchObject({
      principal: { email: EMAIL },
    });
  });
});
