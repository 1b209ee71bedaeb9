import type { Context, Hono } from 'hono';
import type { QueueAction } from '../../auth/access-control.js';
import { formatTimestamp } from '../../cloudtasks/proto-timestamp.js';
import { parseUpdateMask, queueFromJson } from '../../cloudtasks/queue-json.js';
import type { ResolvedDeps } from '../app-deps.js';
import { parseJsonObject } from '../json-body.js';
import { QueryParams } from '../query-params.js';
import { readBody } from '../read-body.js';
import { listQueues } from './list-queues.js';
import { RpcError, writeRpcError } from './rpc-status.js';
import {
  authorize,
  ENTITY_NOT_FOUND,
  json,
  QUEUE_NOT_FOUND,
  queueResource,
  servedQueue,
  type V2Call,
} from './v2-call.js';

/**
 * Cloud Tasks v2's queue methods and locations over REST
 * (docs/cloud-tasks.md), on the service's port: a thin shell over the core
 * (its API-made queues, its operator API) with proto-JSON mapping in
 * src/cloudtasks and errors as google.rpc.Status. The project is the
 * service's (TASKQUEUE_PROJECT), the location TASKQUEUE_LOCATION; any other
 * is NOT_FOUND. Authentication and ACLs are the v1beta2 API's
 * (AccessControl): reads are `queue.get`, changes `queue.admin`.
 */
export function registerCloudTasksQueueRoutes(app: Hono, deps: ResolvedDeps): void {
  const project = '/v2/projects/:project';
  const base = `${project}/locations/:location`;
  app.get(
    `${project}/locations`,
    v2(deps, false, async (call) => json(call, { locations: [locationJson(call)] })),
  );
  app.get(
    base,
    v2(deps, true, async (call) => json(call, locationJson(call))),
  );
  app.get(`${base}/queues`, v2(deps, true, listQueues));
  app.post(`${base}/queues`, v2(deps, true, createQueue));
  app.get(
    `${base}/queues/:queue`,
    v2(deps, true, (call) => getQueue(call, call.c.req.param('queue')!)),
  );
  app.patch(
    `${base}/queues/:queue`,
    v2(deps, true, (call) => patchQueue(call, call.c.req.param('queue')!)),
  );
  app.delete(
    `${base}/queues/:queue`,
    v2(deps, true, (call) => deleteQueue(call, call.c.req.param('queue')!)),
  );
  // `queues/{queue}:purge`, `:pause`, `:resume`: one path segment, its verb after the colon.
  app.post(`${base}/queues/:call`, v2(deps, true, queueVerb));
}

/** The one location served: TASKQUEUE_LOCATION, else Cloud Tasks' usual `us-central1`. */
function locationOf(deps: ResolvedDeps): string {
  return deps.cloudTasksLocation ?? 'us-central1';
}

/** Wraps a method: the project (and location) checked, errors as google.rpc.Status. */
function v2(deps: ResolvedDeps, located: boolean, run: (call: V2Call) => Promise<Response>) {
  return async (c: Context): Promise<Response> => {
    try {
      const project = c.req.param('project')!;
      const location = located ? c.req.param('location')! : locationOf(deps);
      if (project !== deps.service.project || location !== locationOf(deps)) {
        throw new RpcError(
          'NOT_FOUND',
          `${ENTITY_NOT_FOUND} (projects/${project}/locations/${location} is not served here)`,
        );
      }
      const query = QueryParams.fromUrl(c.req.url);
      const alt = query.string('$alt') ?? '';
      return await run({
        c,
        deps,
        query,
        enumsAsNumbers: /(^|;)enum-encoding=int(;|$)/.test(alt),
        parent: `projects/${project}/locations/${location}`,
      });
    } catch (error) {
      return writeRpcError(c, error);
    }
  };
}

function locationJson(call: V2Call): Record<string, unknown> {
  return { name: call.parent, locationId: locationOf(call.deps) };
}

/** The served queue for a method on it, after the access check; NOT_FOUND in Cloud Tasks' words. */
async function queueFor(call: V2Call, name: string, action: QueueAction, missing = QUEUE_NOT_FOUND) {
  const queue = servedQueue(call, name);
  const { operator } = await authorize(call, queue, action);
  if (queue === null) throw new RpcError('NOT_FOUND', missing);
  return { queue, operator };
}

async function getQueue(call: V2Call, name: string): Promise<Response> {
  const { queue } = await queueFor(call, name, 'queue.get');
  return json(call, await queueResource(call, queue));
}

async function createQueue(call: V2Call): Promise<Response> {
  const body = parseJsonObject(await readBody(call.c));
  const id = queueIdOf(call, body.name);
  const config = queueFromJson(body, id, null, null);
  const { operator } = await authorize(call, null, 'queue.admin');
  const made = await call.deps.service.createQueue(config, operator);
  return json(call, await queueResource(call, made, false));
}

/** `queues.patch`: the mask's fields (or all the body sets); a queue that does not exist is created, as Cloud Tasks does. */
async function patchQueue(call: V2Call, name: string): Promise<Response> {
  const body = parseJsonObject(await readBody(call.c));
  if (body.name !== undefined) queueIdOf(call, body.name, name);
  const mask = parseUpdateMask(call.query.string('updateMask') ?? call.query.string('update_mask'));
  const current = servedQueue(call, name);
  const { operator } = await authorize(call, current, 'queue.admin');
  const service = call.deps.service;
  const changed =
    current === null
      ? await service.createQueue(queueFromJson(body, name, null, mask), operator)
      : await service.updateQueue(queueFromJson(body, name, current, mask), operator);
  return json(call, await queueResource(call, changed));
}

async function deleteQueue(call: V2Call, name: string): Promise<Response> {
  const { operator } = await queueFor(call, name, 'queue.admin', ENTITY_NOT_FOUND);
  await call.deps.service.deleteQueue(name, operator);
  return json(call, {});
}

/** `:purge`, `:pause`, `:resume`: operator actions, on file and API-made queues alike, audited by the core. */
async function queueVerb(call: V2Call): Promise<Response> {
  const [name = '', verb = ''] = call.c.req.param('call')!.split(':');
  if (!['purge', 'pause', 'resume'].includes(verb))
    throw new RpcError('NOT_FOUND', `${ENTITY_NOT_FOUND} (no method "${verb}")`);
  const { queue, operator } = await queueFor(call, name, 'queue.admin');
  const operations = call.deps.service.operate(name, operator);
  if (verb === 'pause') await operations.pause();
  if (verb === 'resume') await operations.resume();
  if (verb === 'purge') await operations.purge();
  const resource = await queueResource(call, queue);
  return json(call, verb === 'purge' ? { ...resource, purgeTime: formatTimestamp(new Date()) } : resource);
}

/** The queue ID of a Queue's `name`, which must be `parent/queues/ID` (and, for a patch, the path's). */
function queueIdOf(call: V2Call, name: unknown, expected?: string): string {
  const prefix = `${call.parent}/queues/`;
  const id = typeof name === 'string' && name.startsWith(prefix) ? name.slice(prefix.length) : null;
  if (id === null || !/^[A-Za-z0-9-]{1,100}$/.test(id) || (expected !== undefined && id !== expected)) {
    throw new RpcError(
      'INVALID_ARGUMENT',
      'Queue name must be formatted: "projects/<PROJECT_ID>/locations/<LOCATION_ID>/queues/<QUEUE_ID>".' +
        (expected === undefined ? '' : ` It must be the queue of the path, ${prefix}${expected}.`),
    );
  }
  return id;
}
