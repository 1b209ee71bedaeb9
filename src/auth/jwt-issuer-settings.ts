import { createPublicKey } from 'node:crypto';
import type { JWK } from 'jose';
import { parseFetchUrl, parseIntegerSetting, settingError } from './setting-values.js';

/**
 * Signature algorithms an issuer may be allowed. Only asymmetric ones: with
 * public verification keys, an HS* token would be checked against the
 * public key used as an HMAC secret, which anyone can do (CVE-2015-9235).
 * `none` is never listed (RFC 8725 §3.1, §3.2).
 */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** Where an issuer's verification keys come from. */
export type JwtKeySource =
  | {
      readonly kind: 'remote';
      /** The issuer's JWKS URL (https; http only on loopback). */
      readonly url: string;
      /** How long a fetched key set is used before it is fetched again (jose `cacheMaxAge`). */
      readonly cacheMaxAgeMs: number;
      /** Least time between two fetches caused by unknown `kid`s (jose `cooldownDuration`). */
      readonly cooldownMs: number;
      /** How long a fetch may take (jose `timeoutDuration`). */
      readonly timeoutMs: number;
    }
  | {
      readonly kind: 'static';
      /** Public keys, each bound to one algorithm (`alg` set). */
      readonly keys: readonly JWK[];
    };

/** One trusted token issuer, validated. */
export interface JwtIssuerSettings {
  /** The exact `iss` its tokens carry (RFC 8725 §3.8). */
  readonly issuer: string;
  /** Accepted `aud` values: a token must name at least one (RFC 8725 §3.9). */
  readonly audiences: readonly string[];
  /** The allow-list of `alg` values (RFC 8725 §3.1). */
  readonly algorithms: readonly JwtAlgorithm[];
  readonly keys: JwtKeySource;
  /** Leeway on `exp` and `nbf`, in seconds. */
  readonly clockToleranceSeconds: number;
  /** Required `typ` header (e.g. `at+jwt`, RFC 9068), or null to accept any. */
  readonly typ: string | null;
}

const ISSUER_FIELDS = new Set([
  'issuer',
  'audience',
  'algorithms',
  'jwksUrl',
  'keys',
  'clockToleranceSeconds',
  'typ',
  'jwksCacheMaxAgeSeconds',
  'jwksCooldownSeconds',
  'jwksTimeoutMs',
]);

/** Greatest clock tolerance accepted: RFC 8725 practice is seconds, not minutes. */
export const MAX_CLOCK_TOLERANCE_SECONDS = 300;

/**
 * Reads TASKQUEUE_JWT_ISSUERS: a JSON array of issuers, for example
 *
 * ```json
 * [{ "issuer": "https://idp.example.com", "audience": "taskqueue",
 *    "jwksUrl": "https://idp.example.com/.well-known/jwks.json", "algorithms": ["RS256"] },
 *  { "issuer": "ci", "audience": ["taskqueue"], "algorithms": ["ES256"],
 *    "keys": [{ "pem": "-----BEGIN PUBLIC KEY-----\n…" }] }]
 * ```
 *
 * Unknown fields are errors (a misspelt `audiance` must not silently mean
 * "no audience check"). Keys are either a `jwksUrl` or static `keys`:
 * public JWKs, or `{ "pem": …, "alg"?: …, "kid"?: … }` with an SPKI public
 * key or an X.509 certificate. Private and symmetric keys are refused.
 */
export function parseJwtIssuers(
  field: string,
  json: string | undefined,
  defaultToleranceSeconds: number,
): JwtIssuerSettings[] {
  if (json === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw settingError(field, `is not valid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(parsed)) throw settingError(field, 'must be a JSON array of issuers');
  const issuers = parsed.map((entry, index) => parseIssuer(`${field}[${index}]`, entry, defaultToleranceSeconds));
  const seen = new Set<string>();
  for (const issuer of issuers) {
    if (seen.has(issuer.issuer)) throw settingError(field, `issuer "${issuer.issuer}" is listed twice`);
    seen.add(issuer.issuer);
  }
  return issuers;
}

function parseIssuer(field: string, entry: unknown, defaultToleranceSeconds: number): JwtIssuerSettings {
  if (!isObject(entry)) throw settingError(field, 'must be an object');
  for (const key of Object.keys(entry)) {
    if (!ISSUER_FIELDS.has(key)) throw settingError(field, `unknown field "${key}"`);
  }
  const issuer = entry.issuer;
  if (typeof issuer !== 'string' || issuer === '') throw settingError(`${field}.issuer`, 'must be a non-empty string');
  const audiences = stringList(`${field}.audience`, entry.audience);
  const algorithms = parseAlgorithms(`${field}.algorithms`, entry.algorithms);
  const hasUrl = entry.jwksUrl !== undefined;
  const hasKeys = entry.keys !== undefined;
  if (hasUrl === hasKeys) throw settingError(field, 'needs exactly one of "jwksUrl" and "keys"');
  const keys: JwtKeySource = hasUrl
    ? {
        kind: 'remote',
        url: parseFetchUrl(`${field}.jwksUrl`, entry.jwksUrl),
        cacheMaxAgeMs:
          1000 * parseIntegerSetting(`${field}.jwksCacheMaxAgeSeconds`, entry.jwksCacheMaxAgeSeconds, 600, 1, 86_400),
        cooldownMs: 1000 * parseIntegerSetting(`${field}.jwksCooldownSeconds`, entry.jwksCooldownSeconds, 30, 0, 3600),
        timeoutMs: parseIntegerSetting(`${field}.jwksTimeoutMs`, entry.jwksTimeoutMs, 2000, 1, 60_000),
      }
    : { kind: 'static', keys: parseStaticKeys(`${field}.keys`, entry.keys, algorithms) };
  const typ = entry.typ;
  if (typ !== undefined && (typeof typ !== 'string' || typ === ''))
    throw settingError(`${field}.typ`, 'must be a non-empty string');
  return {
    issuer,
    audiences,
    algorithms,
    keys,
    clockToleranceSeconds: parseIntegerSetting(
      `${field}.clockToleranceSeconds`,
      entry.clockToleranceSeconds,
      defaultToleranceSeconds,
      0,
      MAX_CLOCK_TOLERANCE_SECONDS,
    ),
    typ: typ ?? null,
  };
}

function parseAlgorithms(field: string, value: unknown): JwtAlgorithm[] {
  const names = stringList(field, value);
  for (const name of names) {
    if (!(JWT_ALGORITHMS as readonly string[]).includes(name)) {
      throw settingError(
        field,
        `"${name}" is not allowed; use asymmetric algorithms only (${JWT_ALGORITHMS.join(', ')})`,
      );
    }
  }
  return names as JwtAlgorithm[];
}

function parseStaticKeys(field: string, value: unknown, algorithms: readonly JwtAlgorithm[]): JWK[] {
  if (!Array.isArray(value) || value.length === 0) throw settingError(field, 'must be a non-empty array');
  return value.map((entry, index) => parseStaticKey(`${field}[${index}]`, entry, algorithms));
}

/** One static key as a public JWK bound to exactly one algorithm (RFC 8725 §3.1). */
function parseStaticKey(field: string, entry: unknown, algorithms: readonly JwtAlgorithm[]): JWK {
  if (!isObject(entry)) throw settingError(field, 'must be a JWK or { "pem": … }');
  let jwk: JWK;
  if (typeof entry.pem === 'string') {
    for (const key of Object.keys(entry)) {
      if (!['pem', 'alg', 'kid'].includes(key)) throw settingError(field, `unknown field "${key}"`);
    }
    if (entry.pem.includes('PRIVATE KEY'))
      throw settingError(field, 'holds a private key; configure the public key only');
    try {
      jwk = createPublicKey(entry.pem).export({ format: 'jwk' }) as JWK;
    } catch (error) {
      throw settingError(field, `is not a PEM public key or certificate (${(error as Error).message})`);
    }
    if (entry.alg !== undefined) jwk.alg = String(entry.alg);
    if (entry.kid !== undefined) jwk.kid = String(entry.kid);
  } else {
    jwk = { ...(entry as JWK) };
  }
  if (jwk.kty !== 'RSA' && jwk.kty !== 'EC' && jwk.kty !== 'OKP') {
    throw settingError(field, `key type ${JSON.stringify(jwk.kty)} is not allowed (RSA, EC or OKP public keys only)`);
  }
  if (jwk.d !== undefined) throw settingError(field, 'holds a private key; configure the public key only');
  const usable = algorithms.filter((alg) => algorithmFits(alg, jwk));
  if (jwk.alg !== undefined) {
    if (!usable.includes(jwk.alg as JwtAlgorithm)) {
      throw settingError(field, `its alg "${jwk.alg}" is not in the issuer's algorithms or does not fit the key`);
    }
  } else if (usable.length === 1) {
    jwk.alg = usable[0];
  } else {
    throw settingError(
      field,
      usable.length === 0
        ? "fits none of the issuer's algorithms"
        : `fits several algorithms (${usable.join(', ')}); give it an "alg"`,
    );
  }
  return jwk;
}

/** Whether a key of this type and curve can verify `alg`. */
function algorithmFits(alg: JwtAlgorithm, jwk: JWK): boolean {
  switch (jwk.kty) {
    case 'RSA':
      return alg.startsWith('RS') || alg.startsWith('PS');
    case 'EC':
      return (
        (alg === 'ES256' && jwk.crv === 'P-256') ||
        (alg === 'ES384' && jwk.crv === 'P-384') ||
        (alg === 'ES512' && jwk.crv === 'P-521')
      );
    case 'OKP':
      return jwk.crv === 'Ed25519' && (alg === 'EdDSA' || alg === 'Ed25519');
    default:
      return false;
  }
}

/** A non-empty string or a non-empty array of non-empty strings, as an array. */
function stringList(field: string, value: unknown): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === 'string' && item !== '')) {
    throw settingError(field, 'must be a non-empty string or array of non-empty strings');
  }
  return list as string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
