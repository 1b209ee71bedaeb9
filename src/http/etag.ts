import { createHash } from 'node:crypto';
import type { Task } from '../core/task.js';
import { HttpError } from './http-error.js';

function digest(text: string): string {
  return `"${createHash('sha1').update(text).digest('base64url').slice(0, 22)}"`;
}

/**
 * The ETag of a task: a hash of what can change about it (lease expiry,
 * lease count, tag) plus what identifies this incarnation of the name (its
 * enqueue time). The payload never changes after insert, so it need not be
 * hashed, and list responses (which leave payloads out) give the same ETag
 * as a full read.
 */
export function taskEtag(task: Task): string {
  return digest(taskVersion(task));
}

/** What a task's ETag hashes. */
function taskVersion(task: Task): string {
  return `${task.queueName}\u0000${task.name}\u0000${task.enqueuedUsec}\u0000${task.etaUsec}\u0000${task.retryCount}\u0000${task.tag ?? '\u0001'}`;
}

/**
 * The ETag of a list of tasks (a lease's, a page of tasks.list) and of
 * `extra` (a page token): one hash over what each task's ETag hashes, each
 * prefixed with its length so that no two lists read alike, rather than a
 * hash per task and one over those.
 */
export function tasksEtag(tasks: readonly Task[], extra = ''): string {
  let text = '';
  for (const task of tasks) {
    const version = taskVersion(task);
    text += `${version.length}:${version}`;
  }
  return digest(`${text};${extra}`);
}

/** The ETag of any other response: a hash of its full (unfiltered) JSON. */
export function jsonEtag(json: string): string {
  return digest(json);
}

/** Splits an `If-Match`/`If-None-Match` header into its entity tags (`*` stays `*`). */
function entityTags(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0);
}

/**
 * `If-Match` before a change (spec section 4.3, patch rule 6): the request
 * goes ahead only when the header is absent, `*`, or lists the current ETag
 * (strong comparison: a weak `W/` tag never matches). Otherwise 412 and
 * nothing changes.
 */
export function checkIfMatch(header: string | undefined, current: string): void {
  if (header === undefined) return;
  const tags = entityTags(header);
  if (tags.includes('*') || tags.includes(current)) return;
  throw new HttpError(
    412,
    'conditionNotMet',
    'Precondition Failed: the resource has changed (If-Match does not match its ETag)',
    {
      location: { type: 'header', name: 'If-Match' },
    },
  );
}

/** `If-None-Match` on a read: true when the client's copy is current, so the answer is 304. */
export function matchesIfNoneMatch(header: string | undefined, current: string): boolean {
  if (header === undefined) return false;
  // Weak comparison, as RFC 9110 prescribes for If-None-Match.
  return entityTags(header).some((tag) => tag === '*' || tag === current || tag === `W/${current}`);
}
