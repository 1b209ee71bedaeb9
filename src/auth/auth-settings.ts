import type { ApiKeySettings } from './api-keys.js';
import type { IntrospectionSettings } from './introspection-verifier.js';
import { MAX_CLOCK_TOLERANCE_SECONDS, parseJwtIssuers, type JwtIssuerSettings } from './jwt-issuer-settings.js';
import { DEFAULT_LOCAL_ISSUER, type LocalIssuerSettings } from './local-issuer.js';
import { DEFAULT_SCOPE_ALIASES, KNOWN_SCOPES } from './scopes.js';
import { parseEmailList, parseFetchUrl, parseIntegerSetting, parseOnOff, settingError } from './setting-values.js';

/** How requests to the REST interface are authenticated and authorised. */
export interface AuthSettings {
  /** False only on an explicit TASKQUEUE_AUTH=off; the server then warns at start-up. */
  readonly enabled: boolean;
  /** Project administrators from TASKQUEUE_ADMINS (queue.xml `<admin-email>` adds to them). */
  readonly admins: readonly string[];
  /** Trusted JWT issuers (TASKQUEUE_JWT_ISSUERS). */
  readonly issuers: readonly JwtIssuerSettings[];
  /** RFC 7662 introspection for opaque tokens, or null. */
  readonly introspection: IntrospectionSettings | null;
  /** The issuer behind `taskqueue token`, or null when switched off. */
  readonly localIssuer: LocalIssuerSettings | null;
  /** Configured API keys (hashed). */
  readonly apiKeys: readonly ApiKeySettings[];
  /** Short scope names and the scope URLs they stand for. */
  readonly scopeAliases: Readonly<Record<string, string>>;
}

/** Auth on, the local issuer on, nothing else configured: what a fresh install runs with. */
export const DEFAULT_AUTH_SETTINGS: AuthSettings = {
  enabled: true,
  admins: [],
  issuers: [],
  introspection: null,
  localIssuer: DEFAULT_LOCAL_ISSUER,
  apiKeys: [],
  scopeAliases: DEFAULT_SCOPE_ALIASES,
};

export type AuthEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * Reads the auth settings from environment variables (pure: the caller
 * passes the environment in). Every value is checked strictly, and a
 * combination that would lock everybody out (auth on, no way to get a
 * token) is refused, so a mistake stops the server at start-up instead of
 * surfacing as 401s. Unset or empty variables keep their defaults.
 *
 * | variable | meaning |
 * |---|---|
 * | TASKQUEUE_AUTH | `on` (default) or `off` |
 * | TASKQUEUE_ADMINS | comma-separated administrator e-mails |
 * | TASKQUEUE_CLOCK_TOLERANCE_SECONDS | leeway on exp/nbf, 0-300 (default 30) |
 * | TASKQUEUE_JWT_ISSUERS | JSON array of trusted issuers (see parseJwtIssuers) |
 * | TASKQUEUE_INTROSPECTION_URL, _CLIENT_ID, _CLIENT_SECRET | RFC 7662 endpoint and this service's credentials there |
 * | TASKQUEUE_INTROSPECTION_AUDIENCE | comma-separated accepted `aud` (default: not checked) |
 * | TASKQUEUE_INTROSPECTION_ISSUER | required `iss` (default: not checked) |
 * | TASKQUEUE_INTROSPECTION_TIMEOUT_MS | default 2000 |
 * | TASKQUEUE_INTROSPECTION_CACHE_SECONDS | longest an active answer is reused, default 3600, never past exp |
 * | TASKQUEUE_LOCAL_ISSUER | `on` (default) or `off` |
 * | TASKQUEUE_LOCAL_ISSUER_NAME | `iss` of local tokens (default urn:taskqueue:local) |
 * | TASKQUEUE_LOCAL_AUDIENCE | `aud` of local tokens (default taskqueue) |
 * | TASKQUEUE_TOKEN_TTL_SECONDS | default lifetime of a local token (default 3600) |
 * | TASKQUEUE_TOKEN_MAX_TTL_SECONDS | longest lifetime of a local token (default 86400) |
 * | TASKQUEUE_API_KEYS | comma-separated `application=<sha256 hex of the key>` |
 * | TASKQUEUE_SCOPE_ALIASES | comma-separated `alias=<scope URL>`, added to the defaults |
 */
export function authSettingsFromEnvironment(env: AuthEnvironment): AuthSettings {
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const enabled = parseOnOff('TASKQUEUE_AUTH', text('TASKQUEUE_AUTH'), true);
  const tolerance = parseIntegerSetting(
    'TASKQUEUE_CLOCK_TOLERANCE_SECONDS',
    text('TASKQUEUE_CLOCK_TOLERANCE_SECONDS'),
    DEFAULT_LOCAL_ISSUER.clockToleranceSeconds,
    0,
    MAX_CLOCK_TOLERANCE_SECONDS,
  );
  const issuers = parseJwtIssuers('TASKQUEUE_JWT_ISSUERS', text('TASKQUEUE_JWT_ISSUERS'), tolerance);
  const introspection = introspectionSettings(text, tolerance);
  const localIssuer = localIssuerSettings(text, tolerance);
  if (localIssuer !== null && issuers.some((issuer) => issuer.issuer === localIssuer.issuer)) {
    throw settingError(
      'TASKQUEUE_LOCAL_ISSUER_NAME',
      `"${localIssuer.issuer}" is also in TASKQUEUE_JWT_ISSUERS; choose another name`,
    );
  }
  if (enabled && issuers.length === 0 && introspection === null && localIssuer === null) {
    throw settingError(
      'TASKQUEUE_AUTH',
      'is on, but no token would ever be accepted: configure TASKQUEUE_JWT_ISSUERS or TASKQUEUE_INTROSPECTION_URL, ' +
        'or turn TASKQUEUE_LOCAL_ISSUER on',
    );
  }
  return {
    enabled,
    admins: parseEmailList('TASKQUEUE_ADMINS', text('TASKQUEUE_ADMINS')),
    issuers,
    introspection,
    localIssuer,
    apiKeys: apiKeySettings(text('TASKQUEUE_API_KEYS')),
    scopeAliases: { ...DEFAULT_SCOPE_ALIASES, ...scopeAliases(text('TASKQUEUE_SCOPE_ALIASES')) },
  };
}

type Reader = (name: string) => string | undefined;

function introspectionSettings(text: Reader, tolerance: number): IntrospectionSettings | null {
  const names = ['URL', 'CLIENT_ID', 'CLIENT_SECRET', 'AUDIENCE', 'ISSUER', 'TIMEOUT_MS', 'CACHE_SECONDS'];
  const given = names.filter((name) => text(`TASKQUEUE_INTROSPECTION_${name}`) !== undefined);
  if (given.length === 0) return null;
  for (const required of ['URL', 'CLIENT_ID', 'CLIENT_SECRET']) {
    if (!given.includes(required)) {
      throw settingError(
        `TASKQUEUE_INTROSPECTION_${required}`,
        'is required once any TASKQUEUE_INTROSPECTION_* variable is set',
      );
    }
  }
  return {
    url: parseFetchUrl('TASKQUEUE_INTROSPECTION_URL', text('TASKQUEUE_INTROSPECTION_URL')),
    clientId: text('TASKQUEUE_INTROSPECTION_CLIENT_ID') as string,
    clientSecret: text('TASKQUEUE_INTROSPECTION_CLIENT_SECRET') as string,
    audiences: (text('TASKQUEUE_INTROSPECTION_AUDIENCE') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    issuer: text('TASKQUEUE_INTROSPECTION_ISSUER') ?? null,
    timeoutMs: parseIntegerSetting(
      'TASKQUEUE_INTROSPECTION_TIMEOUT_MS',
      text('TASKQUEUE_INTROSPECTION_TIMEOUT_MS'),
      2000,
      1,
      60_000,
    ),
    maxCacheSeconds: parseIntegerSetting(
      'TASKQUEUE_INTROSPECTION_CACHE_SECONDS',
      text('TASKQUEUE_INTROSPECTION_CACHE_SECONDS'),
      3600,
      0,
      86_400,
    ),
    negativeCacheSeconds: 10,
    cacheEntries: 10_000,
    clockToleranceSeconds: tolerance,
  };
}

function localIssuerSettings(text: Reader, tolerance: number): LocalIssuerSettings | null {
  if (!parseOnOff('TASKQUEUE_LOCAL_ISSUER', text('TASKQUEUE_LOCAL_ISSUER'), true)) return null;
  const maxTtl = parseIntegerSetting(
    'TASKQUEUE_TOKEN_MAX_TTL_SECONDS',
    text('TASKQUEUE_TOKEN_MAX_TTL_SECONDS'),
    DEFAULT_LOCAL_ISSUER.maxTtlSeconds,
    1,
    30 * 86_400,
  );
  return {
    issuer: text('TASKQUEUE_LOCAL_ISSUER_NAME') ?? DEFAULT_LOCAL_ISSUER.issuer,
    audience: text('TASKQUEUE_LOCAL_AUDIENCE') ?? DEFAULT_LOCAL_ISSUER.audience,
    defaultTtlSeconds: parseIntegerSetting(
      'TASKQUEUE_TOKEN_TTL_SECONDS',
      text('TASKQUEUE_TOKEN_TTL_SECONDS'),
      Math.min(DEFAULT_LOCAL_ISSUER.defaultTtlSeconds, maxTtl),
      1,
      maxTtl,
    ),
    maxTtlSeconds: maxTtl,
    clockToleranceSeconds: tolerance,
  };
}

function apiKeySettings(value: string | undefined): ApiKeySettings[] {
  const field = 'TASKQUEUE_API_KEYS';
  const keys = pairs(field, value).map(([application, sha256]) => {
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(application))
      throw settingError(field, `"${application}" is not an application name`);
    if (!/^[0-9a-f]{64}$/i.test(sha256)) {
      throw settingError(
        field,
        `the key of "${application}" must be the 64-digit hex SHA-256 of the key, not the key itself`,
      );
    }
    return { application, sha256: sha256.toLowerCase() };
  });
  return keys;
}

function scopeAliases(value: string | undefined): Record<string, string> {
  const field = 'TASKQUEUE_SCOPE_ALIASES';
  const aliases: Record<string, string> = {};
  for (const [alias, scope] of pairs(field, value)) {
    if (/\s/.test(alias)) throw settingError(field, `alias "${alias}" contains blanks`);
    if (!(KNOWN_SCOPES as readonly string[]).includes(scope)) {
      throw settingError(field, `"${alias}" must stand for one of ${KNOWN_SCOPES.join(', ')}, not "${scope}"`);
    }
    aliases[alias] = scope;
  }
  return aliases;
}

/** `a=b,c=d` as pairs; every entry needs both sides. Errors give the entry's position, not its text (it may be a secret). */
function pairs(field: string, value: string | undefined): Array<[string, string]> {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry, index) => {
      const at = entry.indexOf('=');
      const left = entry.slice(0, at).trim();
      const right = entry.slice(at + 1).trim();
      if (at < 1 || right === '') throw settingError(field, `entry ${index + 1} is not of the form name=value`);
      return [left, right];
    });
}
