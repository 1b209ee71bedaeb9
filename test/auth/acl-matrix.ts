import type { QueueAction } from '../../src/auth/access-control.js';
import type { QueueConfig, ServiceConfig } from '../../src/core/queue-config.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

/**
 * The ACL matrix of issue 4, as data: four callers × two queues (and one
 * queue that is not configured) × every QueueAction, each with the answer
 * it must get. test/auth/acl-matrix.test.ts runs it through
 * AccessControl.check; the REST tests can run the same rows through HTTP
 * (map each action to its method, check the database is unchanged after
 * every denied row).
 *
 * The expectations are written out by hand below, not derived from the
 * rules in src/auth, so the test does not repeat the code it checks.
 */

/** The REST v1beta2 actions. */
export type RestQueueAction = Exclude<QueueAction, 'queue.admin'>;

/** Every REST action, checked at compile time to be complete (operator actions are tested on their own). */
const ACTION_SET: Record<RestQueueAction, true> = {
  'queue.get': true,
  'task.insert': true,
  'task.lease': true,
  'task.get': true,
  'task.list': true,
  'task.update': true,
  'task.delete': true,
};
export const QUEUE_ACTIONS = Object.keys(ACTION_SET) as QueueAction[];

/** The callers, by role. */
export const ACL_USERS = {
  producer: 'producer@example.com',
  consumer: 'consumer@example.com',
  admin: 'admin@example.com',
  stranger: 'stranger@example.com',
} as const;
export type AclRole = keyof typeof ACL_USERS;

/** The administrator is one through the TASKQUEUE_ADMINS setting (pass ACL_ADMINS as AuthSettings.admins). */
export const ACL_ADMINS: readonly string[] = [ACL_USERS.admin];

/**
 * `alpha`: producer writes, consumer consumes. `beta`: the roles swapped (and
 * the consumer's address in other case), so a check that looked at the
 * wrong queue, or mixed the two lists, fails.
 */
export const ACL_QUEUES: readonly QueueConfig[] = [
  pullQueue('alpha', { acl: { writerEmails: [ACL_USERS.producer], userEmails: [ACL_USERS.consumer] } }),
  pullQueue('beta', { acl: { writerEmails: ['Consumer@Example.COM'], userEmails: [ACL_USERS.producer] } }),
];

/** A queue name that is not configured (the check gets `null`). */
export const UNKNOWN_QUEUE = 'gamma';

/** The configuration of the matrix: the default queue plus alpha and beta. */
export function aclMatrixConfig(): ServiceConfig {
  return serviceConfig([...ACL_QUEUES]);
}

const CONSUMING: readonly QueueAction[] = [
  'queue.get',
  'task.lease',
  'task.get',
  'task.list',
  'task.update',
  'task.delete',
];
const PRODUCING: readonly QueueAction[] = ['queue.get', 'task.insert'];

/** What each non-administrator may do, per queue. Administrators may do everything everywhere. */
const GRANTS: Record<string, Partial<Record<AclRole, readonly QueueAction[]>>> = {
  alpha: { producer: PRODUCING, consumer: CONSUMING },
  beta: { producer: CONSUMING, consumer: PRODUCING },
  [UNKNOWN_QUEUE]: {},
};

/** One row: who does what where, and what must come of it. */
export interface AclMatrixRow {
  readonly role: AclRole;
  readonly email: string;
  /** The queue named in the path. */
  readonly queueName: string;
  /** Whether the queue is configured (else the check gets null and the route would answer 404 to administrators). */
  readonly configured: boolean;
  readonly action: QueueAction;
  /** Allowed (200), or refused with 403 `forbidden`. */
  readonly allowed: boolean;
  /** mayReadAcl of an allowed row. */
  readonly mayReadAcl: boolean;
}

/** All rows: 4 roles × 3 queue names × 7 actions = 84. */
export function aclMatrix(): AclMatrixRow[] {
  const rows: AclMatrixRow[] = [];
  for (const role of Object.keys(ACL_USERS) as AclRole[]) {
    for (const queueName of ['alpha', 'beta', UNKNOWN_QUEUE]) {
      for (const action of QUEUE_ACTIONS) {
        const allowed = role === 'admin' || (GRANTS[queueName]?.[role] ?? []).includes(action);
        rows.push({
          role,
          email: ACL_USERS[role],
          queueName,
          configured: queueName !== UNKNOWN_QUEUE,
          action,
          allowed,
          mayReadAcl: role === 'admin',
        });
      }
    }
  }
  return rows;
}
