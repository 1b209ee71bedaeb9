import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import type { RequestCredentials } from '../../src/auth/access-control.js';
import { DEFAULT_AUTH_SETTINGS, type AuthSettings } from '../../src/auth/auth-settings.js';
import type { JwtIssuerSettings } from '../../src/auth/jwt-issuer-settings.js';
import { TASKQUEUE_SCOPE } from '../../src/auth/scopes.js';

/** The `iss` and `aud` of test tokens. */
export const TEST_ISSUER = 'https://issuer.test.invalid';
export const TEST_AUDIENCE = 'taskqueue';

/**
 * A JWT issuer with a static ES256 key, for tests that need valid tokens
 * without a network or a database (the ACL matrix, the REST layer's
 * through-HTTP matrix): `settings` goes into AuthSettings.issuers, `mint`
 * makes tokens it accepts.
 */
export interface TestTokenIssuer {
  readonly settings: JwtIssuerSettings;
  /** A token for `email` with `scopes` (default: the full scope), valid for 10 minutes. */
  mint(email: string, scopes?: readonly string[]): Promise<string>;
  /** Request credentials carrying a token for `email`. */
  credentials(email: string, scopes?: readonly string[]): Promise<RequestCredentials>;
}

export async function createTestTokenIssuer(): Promise<TestTokenIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = 'test-key';
  const settings: JwtIssuerSettings = {
    issuer: TEST_ISSUER,
    audiences: [TEST_AUDIENCE],
    algorithms: ['ES256'],
    keys: { kind: 'static', keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'ES256' }] },
    clockToleranceSeconds: 30,
    typ: null,
  };
  const mint = (email: string, scopes: readonly string[] = [TASKQUEUE_SCOPE]) =>
    signTestToken(privateKey, kid, email, scopes);
  return {
    settings,
    mint,
    credentials: async (email, scopes) => ({
      authorization: `Bearer ${await mint(email, scopes)}`,
      oauthToken: undefined,
      apiKey: undefined,
    }),
  };
}

/** Auth settings trusting only `issuer` (local issuer off, so no database is needed). */
export function testAuthSettings(issuer: TestTokenIssuer, overrides: Partial<AuthSettings> = {}): AuthSettings {
  return { ...DEFAULT_AUTH_SETTINGS, localIssuer: null, issuers: [issuer.settings], ...overrides };
}

function signTestToken(key: CryptoKey, kid: string, email: string, scopes: readonly string[]): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email, email_verified: true, scope: scopes.join(' ') })
    .setProtectedHeader({ alg: 'ES256', kid })
    .setIssuer(TEST_ISSUER)
    .setAudience(TEST_AUDIENCE)
    .setSubject(email)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(key);
}
