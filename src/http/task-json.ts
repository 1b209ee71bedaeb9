import { maskHeaders } from '../core/push/mask-headers.js';
import type { Task } from '../core/task.js';
import { encodePayloadBase64 } from './base64-payload.js';

/** The REST representation of a task (discovery schema `Task`). */
export interface TaskJson {
  kind: 'taskqueues#task';
  id: string;
  queueName: string;
  payloadBase64?: string;
  enqueueTimestamp: string;
  leaseTimestamp: string;
  retry_count: number;
  tag?: string;
  /** Extension: the last failure a worker reported (absent when none). */
  lastError?: string;
  /** Push tasks (extension): where and how the task is delivered. */
  url?: string;
  httpMethod?: string;
  headers?: { name: string; value: string }[];
  /** Push tasks (extension): the attempt deadline the task set; absent = the default (10 minutes). */
  dispatchDeadlineSeconds?: number;
}

/** `projects/{project}/taskqueues/{queue}`: the full queue name every task response carries (AppScale mimics it too). */
export function fullQueueName(project: string, queue: string): string {
  return `projects/${project}/taskqueues/${queue}`;
}

/**
 * A task as JSON. Timestamps are microseconds since the epoch written as
 * decimal strings (the discovery types them int64-as-string; the REST docs,
 * AppScale and hawkeye all read them as microseconds). `leaseTimestamp` is
 * the task's ETA: its lease expiry while leased, and also the lease token a
 * consumer must send back to update it. Lists leave the payload out.
 */
export function taskJson(task: Task, project: string, options: { withPayload: boolean }): TaskJson {
  const json: TaskJson = {
    kind: 'taskqueues#task',
    id: task.name,
    queueName: fullQueueName(project, task.queueName),
    ...(options.withPayload ? { payloadBase64: encodePayloadBase64(task.payload) } : {}),
    enqueueTimestamp: String(task.enqueuedUsec),
    leaseTimestamp: String(task.etaUsec),
    retry_count: task.retryCount,
  };
  if (task.tag !== null) json.tag = task.tag;
  if (typeof task.lastError === 'string') json.lastError = task.lastError;
  if (task.push) {
    json.url = task.push.url;
    json.httpMethod = task.push.method;
    json.headers = maskHeaders(task.push.headers).map(([name, value]) => ({ name, value }));
    if (task.push.deadlineSeconds !== null) json.dispatchDeadlineSeconds = task.push.deadlineSeconds;
  }
  return json;
}

/** The REST representation of a collection of tasks (discovery schemas `Tasks` and `Tasks2`). */
export interface TasksJson {
  kind: 'taskqueues#tasks';
  items?: TaskJson[];
}

/**
 * A lease or list answer. An empty collection leaves `items` out, as
 * Google's JSON APIs do (`{"kind": "taskqueues#tasks"}`); clients read a
 * missing `items` as none.
 */
export function tasksJson(items: TaskJson[]): TasksJson {
  return items.length === 0 ? { kind: 'taskqueues#tasks' } : { kind: 'taskqueues#tasks', items };
}
