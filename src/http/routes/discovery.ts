import type { Context } from 'hono';
import type { ResolvedDeps } from '../app-deps.js';
import { discoveryDocumentFor } from '../discovery/discovery-document.js';
import { openApiDocument } from '../discovery/openapi-document.js';
import { writeJsonText } from '../write-json.js';

/** The URL clients reach this server at: the configured public URL, else the scheme and Host of the request. */
function rootUrl(c: Context, deps: ResolvedDeps): string {
  const root = deps.publicUrl ?? new URL(c.req.url).origin;
  return root.endsWith('/') ? root : `${root}/`;
}

/**
 * `GET /discovery/v1/apis/taskqueue/v1beta2/rest`: the discovery document
 * with its root URL pointing at this server, the path Google served it at,
 * so discovery-based clients (`google.discoverAPI`) work unchanged.
 */
export function discovery(c: Context, deps: ResolvedDeps): Promise<Response> {
  return writeJsonText(c, 200, JSON.stringify(discoveryDocumentFor(rootUrl(c, deps)), null, 1));
}

/** `GET /openapi.json`: the same surface as OpenAPI 3.1. */
export function openApi(c: Context, deps: ResolvedDeps): Promise<Response> {
  const server = rootUrl(c, deps).replace(/\/$/, '');
  return writeJsonText(c, 200, JSON.stringify(openApiDocument(server), null, 2));
}
