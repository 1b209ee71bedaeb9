import { QueueError } from '../core/errors.js';
import { OPEN_ACCESS, type AccessControl } from './access-control.js';
import { ApiKeyRegistry } from './api-keys.js';
import type { AuthSettings } from './auth-settings.js';
import type { AuthStore } from './auth-store.js';
import type { FetchFunction } from './capped-fetch.js';
import { IntrospectionVerifier } from './introspection-verifier.js';
import { createJwtIssuer, type JwtIssuer } from './jwt-issuer.js';
import { LocalIssuer, type LocalIssuerDeps } from './local-issuer.js';
import { TokenAccessControl } from './token-access-control.js';
import { createTokenVerifier } from './token-verifier.js';

/** What the access control needs besides its settings. */
export interface AccessControlDeps {
  /** Where the local issuer keeps its keys (required while it is on). */
  readonly store?: AuthStore;
  /** queue.xml root `<admin-email>` entries (ServiceConfig.adminEmails); added to TASKQUEUE_ADMINS. */
  readonly configAdmins?: readonly string[];
  /** fetch for JWKS and introspection (default: the global fetch). */
  readonly fetch?: FetchFunction;
  /** Clock in epoch ms (tests). */
  readonly now?: () => number;
  /** Local issuer key-cache timings (tests shorten them). */
  readonly localKeyCache?: LocalIssuerDeps['keyCache'];
  /** Where the auth-off warning goes (default console.warn). */
  readonly warn?: (message: string) => void;
}

/** The service's access control, plus what else main needs to wire. */
export interface ServiceAccessControl extends AccessControl {
  /** True when auth is switched off: every request passes. */
  readonly open: boolean;
  /** The local issuer when it is on (the token endpoint mints with it), else null. */
  readonly localIssuer: LocalIssuer | null;
}

/** Printed at start-up when auth is off: loud on purpose. */
export const AUTH_OFF_WARNING =
  '*** WARNING: authentication is OFF (TASKQUEUE_AUTH=off). Anyone who can reach this server can read, ' +
  'add and delete every task in every queue. Use this only on a trusted machine. ***';

/**
 * Builds the access control the REST layer calls. With auth off (only an
 * explicit TASKQUEUE_AUTH=off) it lets everything through and says so on
 * `warn` once, at construction, which is start-up. With auth on it verifies
 * tokens of the configured JWT issuers, the local issuer (keys in the
 * database of `deps.store`) and introspection, and applies the queue ACLs.
 */
export function createAccessControl(settings: AuthSettings, deps: AccessControlDeps = {}): ServiceAccessControl {
  if (!settings.enabled) {
    (deps.warn ?? console.warn)(AUTH_OFF_WARNING);
    return { check: OPEN_ACCESS.check, open: true, localIssuer: null };
  }
  const aliases = settings.scopeAliases;
  const fetchDeps = deps.fetch === undefined ? {} : { fetch: deps.fetch };
  const nowDeps = deps.now === undefined ? {} : { now: deps.now };
  const issuers: JwtIssuer[] = settings.issuers.map((issuer) =>
    createJwtIssuer(issuer, { scopeAliases: aliases, ...fetchDeps }),
  );
  let localIssuer: LocalIssuer | null = null;
  if (settings.localIssuer !== null) {
    if (deps.store === undefined) {
      throw new QueueError(
        'INVALID_CONFIG',
        'the local token issuer needs the database (deps.store); or set TASKQUEUE_LOCAL_ISSUER=off',
      );
    }
    localIssuer = new LocalIssuer(settings.localIssuer, deps.store, {
      scopeAliases: aliases,
      ...nowDeps,
      ...(deps.localKeyCache === undefined ? {} : { keyCache: deps.localKeyCache }),
    });
    issuers.push(localIssuer);
  }
  const introspection =
    settings.introspection === null
      ? null
      : new IntrospectionVerifier(settings.introspection, { scopeAliases: aliases, ...fetchDeps, ...nowDeps });
  const control = new TokenAccessControl({
    verifier: createTokenVerifier(issuers, introspection),
    apiKeys: new ApiKeyRegistry(settings.apiKeys),
    admins: [...settings.admins, ...(deps.configAdmins ?? [])],
  });
  return {
    check: (credentials, queue, action) => control.check(credentials, queue, action),
    open: false,
    localIssuer,
  };
}
