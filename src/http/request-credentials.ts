import type { Context } from 'hono';
import type { RequestCredentials } from '../auth/access-control.js';
import type { QueryParams } from './query-params.js';

/**
 * Collects what a request presents as credentials, unverified: the
 * `Authorization` header and the discovery's `oauth_token` and `key` query
 * parameters. Verifying them is the AccessControl's job. None of them is
 * ever logged or echoed in a response.
 */
export function requestCredentials(c: Context, query: QueryParams): RequestCredentials {
  return credentialsOf(c.req.header('authorization'), query);
}

/** The same, from the `Authorization` header's value (a batch's inner request has no Context). */
export function credentialsOf(authorization: string | undefined, query: QueryParams): RequestCredentials {
  return { authorization, oauthToken: query.string('oauth_token'), apiKey: query.string('key') };
}
