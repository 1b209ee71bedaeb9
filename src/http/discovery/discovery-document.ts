import document from './taskqueue-v1beta2.json' with { type: 'json' };
import type { DiscoveryDocument } from './discovery-types.js';
import { withPushTaskFields } from './push-task-fields.js';

export type { DiscoveryDocument, DiscoveryMethod, DiscoveryParameter, DiscoverySchema } from './discovery-types.js';

/**
 * Google's discovery document of the TaskQueue API, revision 20130318, kept
 * verbatim (spec/taskqueue-v1beta2-discovery.json). It is the contract this
 * server implements: the response shapes for `fields`, the OpenAPI document
 * and the served discovery document are all derived from it, so they
 * cannot drift apart. One addition: the push-queue extension fields of
 * Task (url, httpMethod, headers, dispatchDeadlineSeconds; push-task-fields.ts).
 */
export const DISCOVERY_DOCUMENT: DiscoveryDocument = withPushTaskFields(document as DiscoveryDocument);

/**
 * The discovery document as this server publishes it: `rootUrl` and
 * `baseUrl` point here instead of www.googleapis.com, so discovery-based
 * clients call this server. Everything else is unchanged.
 */
export function discoveryDocumentFor(rootUrl: string): DiscoveryDocument {
  const root = rootUrl.endsWith('/') ? rootUrl : `${rootUrl}/`;
  return { ...DISCOVERY_DOCUMENT, rootUrl: root, baseUrl: `${root}${DISCOVERY_DOCUMENT.servicePath}` };
}
