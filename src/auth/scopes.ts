import type { QueueAction } from './access-control.js';
import { insufficientScope } from './auth-errors.js';

/** "Manage your Tasks and Taskqueues": everything the ACL allows. */
export const TASKQUEUE_SCOPE = 'https://www.googleapis.com/auth/taskqueue';

/** "Consume Tasks from your Taskqueues": everything but inserting tasks. */
export const TASKQUEUE_CONSUMER_SCOPE = 'https://www.googleapis.com/auth/taskqueue.consumer';

/**
 * Short names accepted in tokens and on the command line. Identity providers
 * such as Keycloak or Auth0 rarely mint URL-shaped scopes, so `taskqueue`
 * and `taskqueue.consumer` stand for the two URLs; the `cloud-taskqueue`
 * pair is what an older copy of the discovery document listed.
 * Configuration can add more (TASKQUEUE_SCOPE_ALIASES).
 */
export const DEFAULT_SCOPE_ALIASES: Readonly<Record<string, string>> = {
  taskqueue: TASKQUEUE_SCOPE,
  'taskqueue.consumer': TASKQUEUE_CONSUMER_SCOPE,
  'https://www.googleapis.com/auth/cloud-taskqueue': TASKQUEUE_SCOPE,
  'https://www.googleapis.com/auth/cloud-taskqueue.consumer': TASKQUEUE_CONSUMER_SCOPE,
};

/** The two scopes this service grants by, in the order challenges list them. */
export const KNOWN_SCOPES = [TASKQUEUE_SCOPE, TASKQUEUE_CONSUMER_SCOPE] as const;

/**
 * Which scopes allow an action. The discovery document lists both scopes on
 * every method; the consumer scope's own description ("Consume Tasks") and
 * issue 4 take insert away from it. `taskqueues.get` stays allowed under the
 * consumer scope: a consumer reads queue statistics to size its leases, and
 * the discovery document grants it.
 */
export function scopesAllowing(action: QueueAction): readonly string[] {
  // Operator actions change what every consumer sees: the full scope only.
  return action === 'task.insert' || action === 'queue.admin' ? [TASKQUEUE_SCOPE] : KNOWN_SCOPES;
}

/** Throws 403 `insufficient_scope` unless one of `granted` allows `action`. */
export function requireScope(granted: readonly string[], action: QueueAction): void {
  const accepted = scopesAllowing(action);
  if (!accepted.some((scope) => granted.includes(scope))) throw insufficientScope(accepted);
}

/**
 * Scope names as a token gives them, with aliases
 * replaced by the URLs they stand for. Accepts the space-delimited `scope`
 * string of RFC 8693/9068 and the `scp` arrays some providers send.
 * Duplicates are dropped; order is kept.
 */
export function expandScopes(raw: unknown, aliases: Readonly<Record<string, string>>): string[] {
  const names = typeof raw === 'string' ? raw.split(/\s+/) : Array.isArray(raw) ? raw : [];
  const out: string[] = [];
  for (const name of names) {
    if (typeof name !== 'string' || name === '') continue;
    const scope = Object.hasOwn(aliases, name) ? (aliases[name] as string) : name;
    if (!out.includes(scope)) out.push(scope);
  }
  return out;
}
