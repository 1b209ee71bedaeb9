import { isQueueError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { Task } from '../../core/task.js';
import { remainingWaitMs } from '../wait-budget.js';
import { tasksEtag } from '../etag.js';
import { invalidParameter, requiredParameter } from '../http-error.js';
import { leaseRequestParams } from '../lease-body.js';
import { readBody } from '../read-body.js';
import { RESPONSE_SHAPES } from '../response-shapes.js';
import type { RestCall, RestMethod } from '../rest-handler.js';
import { storableTag } from '../task-body.js';
import { taskJson, tasksJson } from '../task-json.js';
import { writeJson } from '../write-json.js';

/** Longest lease: one week, in seconds (spec section 8). */
const MAX_LEASE_SECONDS = LIMITS.maxLeaseMs / 1000;

/** Longest `waitSecs` a lease may ask for (an extension: long-poll). */
export const MAX_WAIT_SECONDS = LIMITS.maxLeaseWaitMs / 1000;

/**
 * tasks.lease: `POST .../tasks/lease?numTasks=N&leaseSecs=S[&groupByTag=true[&tag=T]][&waitSecs=W]`.
 * The parameters may also come as a form body (hawkeye sends them so) or a
 * JSON body (early discovery clients send `{}`; see lease-body.ts), and
 * `leaseSecs` may be spelled `lease_secs` (spec section 4.1). `tag` is only
 * valid with `groupByTag=true` (the discovery: "Must only be specified if
 * group_by_tag is true"; the SDK stub refuses it otherwise). The leased
 * payloads add up to at most 1 MB (spec section 8); tasks past that stay
 * available. When nothing could be leased the answer has no `items` at all
 * (`{"kind": "taskqueues#tasks"}`, as Google's JSON APIs write an empty
 * collection). In a batch, `waitSecs` counts from the batch's start
 * (wait-budget.ts), so a batch waits at most its longest `waitSecs`.
 * A paused queue answers 200 with no tasks, as App Engine's paused pull
 * queues did (in-process the same lease fails with QUEUE_PAUSED); a
 * long-poll on it waits out its `waitSecs`, seeing a resume within a second,
 * rather than sending its client into a busy loop.
 */
export const LEASE_TASKS: RestMethod = {
  action: 'task.lease',
  shape: RESPONSE_SHAPES.leasedTasks,
  async run(call) {
    const { c, params, project, queue } = call;
    const lease = await leaseParams(call);
    const options = {
      lease: lease.leaseSecs,
      unit: 'seconds' as const,
      maxTasks: lease.numTasks,
      groupByTag: lease.groupByTag,
      ...(lease.tag === undefined ? {} : { tag: lease.tag }),
      payloadLimitBytes: LIMITS.maxRestLeasePayloadBytes,
    };
    // The core waits (long-poll); the client's going away ends the wait.
    const waitMs = remainingWaitMs(c, lease.waitSecs * 1000);
    // Only a wait needs the signal, and only once the first attempt came back
    // empty: reading `c.req.raw.signal` makes the adapter build an
    // AbortController per request, and AbortSignal.any() adds another.
    const wait =
      waitMs > 0 ? { waitMs, signal: () => untilShutdown(c.req.raw.signal, call.deps.shutdown) } : { waitMs };
    const tasks = await queue.leaseTasks({ ...options, ...wait }).catch(noTasksWhenPaused);
    const body = tasksJson(tasks.map((task) => taskJson(task, project, { withPayload: true })));
    return writeJson(c, params, { body, etag: tasksEtag(tasks) });
  },
};

/** The client's signal, also aborted when the server shuts down: a pending long-poll then answers with what it has. */
function untilShutdown(client: AbortSignal, shutdown: AbortSignal | undefined): AbortSignal {
  return shutdown ? AbortSignal.any([client, shutdown]) : client;
}

/** A paused queue leases nothing: over REST that is an empty result, not an error. */
function noTasksWhenPaused(error: unknown): Task[] {
  if (isQueueError(error, 'QUEUE_PAUSED')) return [];
  throw error;
}

interface LeaseParams {
  readonly numTasks: number;
  readonly leaseSecs: number;
  readonly groupByTag: boolean;
  readonly tag: string | undefined;
  readonly waitSecs: number;
}

async function leaseParams({ c, query }: RestCall): Promise<LeaseParams> {
  const params = leaseRequestParams(query, await readBody(c), c.req.header('content-type'));
  const numTasks = params.requiredInteger('numTasks', { min: 1, max: LIMITS.maxTasksPerLease });
  const seconds = { min: 0, max: MAX_LEASE_SECONDS };
  const leaseSecs = params.integer('leaseSecs', seconds);
  const legacy = params.integer('lease_secs', seconds);
  if (leaseSecs !== undefined && legacy !== undefined) {
    throw invalidParameter('lease_secs', 'Give either leaseSecs or lease_secs, not both');
  }
  const secs = leaseSecs ?? legacy;
  if (secs === undefined) throw requiredParameter('leaseSecs');
  const groupByTag = params.boolean('groupByTag') ?? false;
  const tag = storableTag(params.string('tag'), 'tag');
  if (tag !== undefined && !groupByTag) {
    throw invalidParameter('tag', 'Parameter tag may only be given with groupByTag=true');
  }
  if (tag === '') throw invalidParameter('tag', 'Parameter tag must not be empty');
  const waitSecs = params.integer('waitSecs', { min: 0, max: MAX_WAIT_SECONDS }) ?? 0;
  return { numTasks, leaseSecs: secs, groupByTag, tag, waitSecs };
}
