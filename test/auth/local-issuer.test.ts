import { decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestCredentials } from '../../src/auth/access-control.js';
import { DEFAULT_AUTH_SETTINGS } from '../../src/auth/auth-settings.js';
import { createAccessControl } from '../../src/auth/create-access-control.js';
import { DEFAULT_LOCAL_ISSUER, LocalIssuer, type LocalIssuerSettings } from '../../src/auth/local-issuer.js';
import { DEFAULT_SCOPE_ALIASES, TASKQUEUE_CONSUMER_SCOPE, TASKQUEUE_SCOPE } from '../../src/auth/scopes.js';
import { isQueueError } from '../../src/core/errors.js';
import { migrate } from '../../src/store/migrate/migrate.js';
import { PgAuthStore } from '../../src/store/pg-auth-store.js';
import type { StoreContext } from '../../src/store/store-context.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { ENGINES, freshSchema, openTestService, type TestService } from '../helpers/engines.js';
import { outcomeOf } from './auth-outcome.js';
import { secondHandle, storeContextOf } from './store-context-of.js';

const EMAIL = 'dev@example.com';
const QUEUE = pullQueue('work', { acl: { userEmails: [EMAIL], writerEmails: [EMAIL] } });

function bearer(token: string): RequestCredentials {
  return { authorization: `Bearer ${token}`, oauthToken: undefined, apiKey: undefined };
}

function issuerOn(
  ctx: StoreContext,
  options: { settings?: Partial<LocalIssuerSettings>; now?: () => number; cooldownMs?: number } = {},
) {
  return new LocalIssuer({ ...DEFAULT_LOCAL_ISSUER, ...options.settings }, new PgAuthStore(ctx), {
    scopeAliases: DEFAULT_SCOPE_ALIASES,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.cooldownMs === undefined ? {} : { keyCache: { cooldownMs: options.cooldownMs } }),
  });
}

/** The failure description of a refused verification. */
async function refusal(issuer: LocalIssuer, token: string): Promise<string> {
  const error = await issuer.verify(token).then(
    () => null,
    (e: unknown) => e,
  );
  if (!isQueueError(error, 'UNAUTHENTICATED')) throw new Error(`expected a 401, got ${String(error)}`);
  return error.message;
}

describe.each(ENGINES)('local issuer on %s', (engine) => {
  let t: TestService;
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await t?.close();
  });

  async function open(): Promise<StoreContext> {
    t = await openTestService(engine, serviceConfig([QUEUE]));
    return storeContextOf(t);
  }

  async function other(): Promise<StoreContext> {
    const handle = await secondHandle(t);
    closers.push(() => handle.database.close());
    return handle.ctx;
  }

  const keyRows = () =>
    t.sql<{ kid: string; retired: boolean; has_private: boolean; grace_seconds: number | null }>(
      `select kid, retired_at is not null as retired, private_jwk is not null as has_private,
              extract(epoch from verify_until - retired_at)::int as grace_seconds
         from ${t.schema}.auth_signing_keys order by created_at`,
    );

  it('creates its key on first use and mints tokens that the access control accepts', async () => {
    const ctx = await open();
    expect(await keyRows()).toEqual([]);
    const control = createAccessControl(DEFAULT_AUTH_SETTINGS, { store: new PgAuthStore(ctx) });
    const minted = await control.localIssuer?.mint({ email: EMAIL });
    expect(minted).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600, scope: TASKQUEUE_SCOPE });
    const rows = await keyRows();
    expect(rows).toHaveLength(1);

    const token = minted?.accessToken ?? '';
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: rows[0]?.kid });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: 'urn:taskqueue:local',
      aud: 'taskqueue',
      sub: EMAIL,
      email: EMAIL,
      email_verified: true,
    });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(3600);

    const decision = await control.check(bearer(token), QUEUE, 'task.insert');
    // The principal carries the token's expiry (the console's session ends with it).
    expect(decision.principal).toEqual({
      email: EMAIL,
      scopes: [TASKQUEUE_SCOPE],
      expiresAt: (claims.exp ?? 0) * 1000,
    });
    expect(decision.mayReadAcl).toBe(false);
    // The same key signs the next token.
    await control.localIssuer?.mint({ email: EMAIL });
    expect(await keyRows()).toHaveLength(1);
  });

  it('mints consumer tokens by alias, with a chosen lifetime', async () => {
    const issuer = issuerOn(await open());
    const minted = await issuer.mint({ email: EMAIL, scopes: ['taskqueue.consumer'], ttlSeconds: 120 });
    expect(minted.scope).toBe(TASKQUEUE_CONSUMER_SCOPE);
    const control = createAccessControl(DEFAULT_AUTH_SETTINGS, { store: t.service.authStore });
    expect((await outcomeOf(control.check(bearer(minted.accessToken), QUEUE, 'task.lease'))).status).toBe(200);
    expect((await outcomeOf(control.check(bearer(minted.accessToken), QUEUE, 'task.insert'))).status).toBe(403);
  });

  it('refuses bad mint requests', async () => {
    const issuer = issuerOn(await open(), { settings: { maxTtlSeconds: 600 } });
    for (const request of [
      { email: 'not-an-email' },
      { email: EMAIL, scopes: ['taskqueue.admin'] },
      { email: EMAIL, scopes: [] },
      { email: EMAIL, ttlSeconds: 0 },
      { email: EMAIL, ttlSeconds: 601 },
      { email: EMAIL, ttlSeconds: 1.5 },
    ]) {
      await expect(issuer.mint(request), JSON.stringify(request)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    }
  });

  it('is trusted by every instance sharing the database, and they create one key between them', async () => {
    const a = issuerOn(await open());
    const b = issuerOn(await other());
    const [fromA, fromB] = await Promise.all([a.mint({ email: EMAIL }), b.mint({ email: 'other@example.com' })]);
    expect(await keyRows()).toHaveLength(1);
    expect(decodeProtectedHeader(fromA.accessToken).kid).toBe(decodeProtectedHeader(fromB.accessToken).kid);
    await expect(b.verify(fromA.accessToken)).resolves.toMatchObject({ email: EMAIL });
    await expect(a.verify(fromB.accessToken)).resolves.toMatchObject({ email: 'other@example.com' });
  });

  it('picks up a key created by another instance once its cooldown has passed', async () => {
    let clock = Date.now();
    const now = () => clock;
    const a = issuerOn(await open(), { now });
    const b = issuerOn(await other(), { now, cooldownMs: 1000 });
    // b reads the (still empty) key set, for a token naming a key nobody has.
    const stranger = await generateKeyPair('ES256');
    const unknown = await new SignJWT({ email: EMAIL })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'nobody' })
      .setIssuer(DEFAULT_LOCAL_ISSUER.issuer)
      .setAudience(DEFAULT_LOCAL_ISSUER.audience)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(stranger.privateKey);
    expect(await refusal(b, unknown)).toContain('no key of the issuer matches');
    const token = (await a.mint({ email: EMAIL })).accessToken;
    expect(await refusal(b, token)).toContain('no key of the issuer matches');
    clock += 1000;
    await expect(b.verify(token)).resolves.toMatchObject({ email: EMAIL });
  });

  it('keeps tokens of a rotated key valid until they expire, and signs with the new key', async () => {
    let clock = Date.now();
    const now = () => clock;
    const ctx = await open();
    const a = issuerOn(ctx, { now });
    const old = (await a.mint({ email: EMAIL, ttlSeconds: 600 })).accessToken;
    const newKid = await a.rotateKey();
    const fresh = (await a.mint({ email: EMAIL, ttlSeconds: 3600 })).accessToken;
    expect(decodeProtectedHeader(fresh).kid).toBe(newKid);
    expect(decodeProtectedHeader(old).kid).not.toBe(newKid);

    const rows = await keyRows();
    expect(rows).toEqual([
      {
        kid: decodeProtectedHeader(old).kid,
        retired: true,
        has_private: false,
        grace_seconds: DEFAULT_LOCAL_ISSUER.maxTtlSeconds,
      },
      { kid: newKid, retired: false, has_private: true, grace_seconds: null },
    ]);
    const b = issuerOn(await other(), { now });
    for (const verifier of [a, b]) {
      await expect(verifier.verify(old)).resolves.toMatchObject({ email: EMAIL });
      await expect(verifier.verify(fresh)).resolves.toMatchObject({ email: EMAIL });
    }
    clock += 601_000 + DEFAULT_LOCAL_ISSUER.clockToleranceSeconds * 1000;
    expect(await refusal(b, old)).toContain('exp');
    await expect(b.verify(fresh)).resolves.toMatchObject({ email: EMAIL });
  });

  it('stops trusting a retired key once every token it signed has expired', async () => {
    const ctx = await open();
    const shortLived = issuerOn(ctx, { settings: { maxTtlSeconds: 1 } });
    const token = (await shortLived.mint({ email: EMAIL, ttlSeconds: 1 })).accessToken;
    await shortLived.rotateKey();
    await new Promise((resolve) => setTimeout(resolve, 1200));
    // exp + 30 s tolerance has not passed, so only the retired key can refuse it.
    expect(await refusal(issuerOn(await other()), token)).toContain('no key of the issuer matches');
  });

  it('refuses a retired key past its verify_until even while it is cached', async () => {
    let clock = Date.now();
    const now = () => clock;
    const a = issuerOn(await open(), { settings: { maxTtlSeconds: 60 }, now });
    const token = (await a.mint({ email: EMAIL, ttlSeconds: 60 })).accessToken;
    await a.rotateKey();
    await a.verify(token); // caches the retired key with its verify_until
    clock += 61_000; // past verify_until, still inside exp + 30 s tolerance
    expect(await refusal(a, token)).toContain('retired');
  });

  it('stops trusting a revoked key at once here, and elsewhere once the key cache is reread', async () => {
    let clock = Date.now();
    const now = () => clock;
    const a = issuerOn(await open(), { now });
    const b = issuerOn(await other(), { now });
    const token = (await a.mint({ email: EMAIL })).accessToken;
    await b.verify(token);
    await a.rotateKey({ revoke: true });
    expect(await refusal(a, token)).toContain('no key of the issuer matches');
    await b.verify(token); // b's cache still holds the key for up to a minute
    clock += 60_000;
    expect(await refusal(b, token)).toContain('no key of the issuer matches');
    expect(await keyRows()).toHaveLength(1);
  });

  it('accepts only its own at+jwt ES256 access tokens', async () => {
    const ctx = await open();
    const issuer = issuerOn(ctx);
    const good = (await issuer.mint({ email: EMAIL })).accessToken;
    const [row] = await t.sql<{ private_jwk: JWK }>(`select private_jwk from ${t.schema}.auth_signing_keys`);
    const key = await importJWK(row?.private_jwk as JWK, 'ES256');
    const claims = decodeJwt(good);
    const forge = (header: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      new SignJWT({ ...claims, ...extra }).setProtectedHeader({ alg: 'ES256', ...header }).sign(key);
    const kid = decodeProtectedHeader(good).kid;
    expect(await refusal(issuer, await forge({ kid, typ: 'JWT' }))).toContain('typ');
    expect(await refusal(issuer, await forge({ kid, typ: 'at+jwt' }, { aud: 'elsewhere' }))).toContain('aud');
    expect(await refusal(issuer, await forge({ typ: 'at+jwt' }))).toContain('kid');

    // Another deployment (schema) has keys of its own: its tokens are refused.
    const otherSchema = freshSchema();
    await migrate(ctx.db, otherSchema);
    closers.push(async () => void (await t.sql(`drop schema ${otherSchema} cascade`)));
    const foreign = (await issuerOn({ db: ctx.db, schema: otherSchema }).mint({ email: EMAIL })).accessToken;
    expect(await refusal(issuer, foreign)).toContain('no key of the issuer matches');
  });

  it('refuses tokens issued in the future, or living longer than its maximum', async () => {
    const ctx = await open();
    // The issuer's clock stands still: the boundaries below hold to the second, however slow the machine.
    const clock = Math.ceil(Date.now() / 1000) * 1000;
    const issuer = issuerOn(ctx, { settings: { maxTtlSeconds: 7200, clockToleranceSeconds: 30 }, now: () => clock });
    const good = (await issuer.mint({ email: EMAIL })).accessToken;
    const [row] = await t.sql<{ private_jwk: JWK }>(`select private_jwk from ${t.schema}.auth_signing_keys`);
    const key = await importJWK(row?.private_jwk as JWK, 'ES256');
    const kid = decodeProtectedHeader(good).kid;
    const now = clock / 1000;
    const sign = (iat: number, exp: number) =>
      new SignJWT({ ...decodeJwt(good), iat, exp }).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).sign(key);
    // Within the clock tolerance and the maximum lifetime: accepted.
    await expect(issuer.verify(await sign(now + 20, now + 3600))).resolves.toMatchObject({ email: EMAIL });
    await expect(issuer.verify(await sign(now - 100, now - 100 + 7200))).resolves.toMatchObject({ email: EMAIL });
    // Issued an hour from now (and so still valid an hour after that): refused.
    expect(await refusal(issuer, await sign(now + 3600, now + 7200))).toContain('issued in the future');
    expect(await refusal(issuer, await sign(now + 31, now + 600))).toContain('issued in the future');
    // A lifetime of ten years, or one second past the maximum: refused.
    expect(await refusal(issuer, await sign(now, now + 10 * 365 * 86_400))).toContain('longer than the issuer');
    expect(await refusal(issuer, await sign(now - 10, now - 10 + 7201))).toContain('maximum of 7200 seconds');
  });

  it('is not trusted when switched off', async () => {
    const ctx = await open();
    const token = (await issuerOn(ctx).mint({ email: EMAIL })).accessToken;
    const issuers = [
      {
        issuer: 'https://idp.example',
        audiences: ['taskqueue'],
        algorithms: ['ES256' as const],
        keys: { kind: 'static' as const, keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', alg: 'ES256' }] },
        clockToleranceSeconds: 0,
        typ: null,
      },
    ];
    const control = createAccessControl({ ...DEFAULT_AUTH_SETTINGS, localIssuer: null, issuers });
    expect(control.localIssuer).toBeNull();
    expect(await outcomeOf(control.check(bearer(token), QUEUE, 'task.lease'))).toMatchObject({ status: 401 });
  });
});
