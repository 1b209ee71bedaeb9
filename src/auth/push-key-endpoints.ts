import type { AuthStore } from './auth-store.js';
import { DEFAULT_LOCAL_ISSUER } from './local-issuer.js';
import { publicJwks } from './push-token-signer.js';

/** How long a client may cache the key set: a new key is published well before it signs (local-issuer.ts rotates ahead). */
const CACHE_CONTROL = 'public, max-age=300';

/** The service an embedding application opened (`openTaskQueue`): its keys are in its database. */
export interface PushKeySource {
  readonly authStore: AuthStore;
}

/**
 * The public keys that verify push delivery tokens, as a JWKS document
 * (`{keys: [...]}`): what a server publishes at /.well-known/jwks.json.
 * An application that embeds the library and dispatches signs its pushes
 * with the keys in the database; this lets it publish them too.
 */
export function pushTokenJwks(source: PushKeySource): Promise<{ keys: Record<string, unknown>[] }> {
  return publicJwks(source.authStore);
}

/** Options of `pushKeysHandler`. */
export interface PushKeysHandlerOptions {
  /** The `iss` of the tokens: `pushIssuer` as given to openTaskQueue (default `urn:taskqueue:local`). */
  readonly issuer?: string;
}

/**
 * A Fetch API handler (Hono, Bun, Deno, Next.js route handlers; Express
 * through `pushTokenJwks`) serving, on GET or HEAD:
 * - a path ending in `/jwks.json`: the JWKS document;
 * - a path ending in `/openid-configuration`: an OpenID discovery document
 *   whose `jwks_uri` is the `jwks.json` beside it, for verifiers that start
 *   from the issuer's discovery;
 * and 404 to anything else, 405 to other methods. Mount it at
 * `/.well-known/*`.
 */
export function pushKeysHandler(
  source: PushKeySource,
  options: PushKeysHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const issuer = options.issuer ?? DEFAULT_LOCAL_ISSUER.issuer;
  return async (request) => {
    const url = new URL(request.url);
    const jwks = url.pathname.endsWith('/jwks.json');
    const discovery = url.pathname.endsWith('/openid-configuration');
    if (!jwks && !discovery) return new Response('not found\n', { status: 404 });
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return new Response('method not allowed\n', { status: 405, headers: { allow: 'GET, HEAD' } });
    const body = jwks
      ? await pushTokenJwks(source)
      : {
          issuer,
          jwks_uri: new URL(url.pathname.replace(/openid-configuration$/, 'jwks.json'), url).href,
          id_token_signing_alg_values_supported: ['ES256'],
          subject_types_supported: ['public'],
          response_types_supported: ['id_token'],
        };
    const headers = { 'content-type': 'application/json', 'cache-control': CACHE_CONTROL };
    return new Response(request.method === 'HEAD' ? null : JSON.stringify(body), { status: 200, headers });
  };
}
