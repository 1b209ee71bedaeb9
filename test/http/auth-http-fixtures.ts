import { TASKQUEUE_SCOPE } from '../../src/auth/scopes.js';

/**
 * What the auth tests through HTTP (auth-http-*.test.ts) share: the task
 * names the fixtures store, the challenges and the refusal body they expect.
 */

/** A queue.xml root `<admin-email>`: an administrator by configuration (TASKQUEUE_ADMINS names ACL_USERS.admin). */
export const CONFIG_ADMIN = 'root@example.com';

/** Task names distinctive enough that finding one in a response cannot be a coincidence. */
export const WAITING = 'tq-waiting-7f3a';
export const HELD = 'tq-held-9c1e';
export const FRESH = 'tq-fresh-2b8d';

/** The WWW-Authenticate challenges: no credentials, a bad token, a bad request, a scope short of inserting. */
export const BARE = 'Bearer realm="taskqueue"';
export const INVALID_TOKEN = /^Bearer realm="taskqueue", error="invalid_token", error_description="[^"]+"$/;
export const INVALID_REQUEST = /^Bearer realm="taskqueue", error="invalid_request", error_description="[^"]+"$/;
export const INSERT_SCOPE = `Bearer realm="taskqueue", error="insufficient_scope", scope="${TASKQUEUE_SCOPE}"`;

/** The body of every ACL refusal: one fixed text, whatever the queue, the method or the caller. */
export const FORBIDDEN_BODY = {
  error: {
    errors: [{ domain: 'global', reason: 'forbidden', message: 'The caller does not have permission' }],
    code: 403,
    message: 'The caller does not have permission',
  },
};

/** The names and payloads the fixture stores in every seeded queue (none may leak from a refusal). */
export function secretsOf(queues: readonly string[]) {
  return {
    names: [WAITING, HELD, FRESH],
    payloads: queues.flatMap((queue) => [`${queue}-${WAITING}-secret`, `${queue}-${HELD}-secret`]),
  };
}
