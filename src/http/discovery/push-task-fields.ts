import type { DiscoveryDocument, DiscoverySchema } from './discovery-types.js';

/**
 * Extension fields of the Task schema for push queues: where and how the
 * task is delivered, and how long an attempt may take. `payloadBase64` is the request body (optional here). Sent on
 * tasks.insert to a push queue, and answered on push tasks.
 */
export const PUSH_TASK_FIELDS: Readonly<Record<string, DiscoverySchema>> = {
  url: {
    type: 'string',
    description:
      "Extension, push queues: path and query the task is delivered to, relative to the queue's target URL. Default /_ah/queue/<queue>.",
  },
  httpMethod: {
    type: 'string',
    description:
      'Extension, push queues: POST (default), GET, PUT, DELETE, HEAD or PATCH. A body is allowed with POST, PUT and PATCH only.',
  },
  headers: {
    type: 'array',
    description:
      'Extension, push queues: request headers in order. X-AppEngine-* headers are dropped, except X-AppEngine-FailFast and X-AppEngine-Current-Namespace.',
    items: {
      type: 'object',
      properties: { name: { type: 'string' }, value: { type: 'string' } },
    },
  },
  dispatchDeadlineSeconds: {
    type: 'number',
    format: 'double',
    description:
      'Extension, push queues: how long one delivery attempt may take before it counts as failed, in seconds, from 15 to 86400 (24 hours). Default 600.',
  },
};

/** The document with the push extension fields added to its Task schema. */
export function withPushTaskFields(document: DiscoveryDocument): DiscoveryDocument {
  const task = document.schemas.Task;
  if (task === undefined) return document;
  return {
    ...document,
    schemas: { ...document.schemas, Task: { ...task, properties: { ...task.properties, ...PUSH_TASK_FIELDS } } },
  };
}
