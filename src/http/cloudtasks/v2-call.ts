import type { Context } from 'hono';
import type { AccessDecision, QueueAction } from '../../auth/access-control.js';
import { queueJson } from '../../cloudtasks/queue-json.js';
import type { Operator } from '../../core/audit-log.js';
import { isQueueError } from '../../core/errors.js';
import type { QueueConfig } from '../../core/queue-config.js';
import type { ResolvedDeps } from '../app-deps.js';
import type { QueryParams } from '../query-params.js';
import { requestCredentials } from '../request-credentials.js';
import { noteCaller } from '../request-notes.js';

/** Cloud Tasks' words for a queue that is not there (its recordings: get, pause, resume, purge, createTask). */
export const QUEUE_NOT_FOUND =
  'Queue does not exist. If you just created the queue, wait at least a minute for the queue to initialize.';
/** Its words for other missing entities (deleteQueue, the task methods). */
export const ENTITY_NOT_FOUND = 'Requested entity was not found.';

/** One call of the v2 REST surface: its request, the parsed query, and how it answers. */
export interface V2Call {
  readonly c: Context;
  readonly deps: ResolvedDeps;
  readonly query: QueryParams;
  /** `$alt=json;enum-encoding=int` (Google's Node client): enums as numbers. */
  readonly enumsAsNumbers: boolean;
  readonly parent: string;
}

/** The caller's decision for `action` on a queue (null: not served), and who they are for the audit log. */
export async function authorize(
  call: V2Call,
  queue: QueueConfig | null,
  action: QueueAction,
): Promise<{ decision: AccessDecision; operator: Operator }> {
  const decision = await call.deps.accessControl.check(requestCredentials(call.c, call.query), queue, action);
  noteCaller(call.c, decision.principal?.email);
  return { decision, operator: { actor: decision.principal?.email ?? 'anonymous', source: 'cloudtasks' } };
}

/** A push queue this process serves (v2 has no pull queues: those stay v1beta2's), or null. */
export function servedQueue(call: V2Call, name: string): QueueConfig | null {
  return call.deps.service.queues().find((queue) => queue.name === name && queue.mode === 'push') ?? null;
}

/** The Queue resource of a served queue, its state read from the database (as every process sees it). */
export async function queueResource(
  call: V2Call,
  queue: QueueConfig,
  paused?: boolean,
): Promise<Record<string, unknown>> {
  const isPaused =
    paused ?? (await call.deps.service.operate(queue.name, { actor: 'cloudtasks', source: 'cloudtasks' }).isPaused());
  return queueJson(queue, {
    name: `${call.parent}/queues/${queue.name}`,
    paused: isPaused,
    enumsAsNumbers: call.enumsAsNumbers,
  });
}

export function json(call: V2Call, body: unknown): Response {
  return call.c.json(body as object, 200);
}

/** True for a QueueError the list leaves out rather than fails on: a queue the caller may not read. */
export function isRefusal(error: unknown): boolean {
  return isQueueError(error, 'PERMISSION_DENIED');
}
