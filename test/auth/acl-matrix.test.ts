import { beforeAll, describe, expect, it } from 'vitest';
import { createAccessControl, type ServiceAccessControl } from '../../src/auth/create-access-control.js';
import { TASKQUEUE_CONSUMER_SCOPE } from '../../src/auth/scopes.js';
import { isQueueError } from '../../src/core/errors.js';
import { ACL_ADMINS, ACL_QUEUES, ACL_USERS, QUEUE_ACTIONS, aclMatrix, aclMatrixConfig } from './acl-matrix.js';
import { outcomeOf } from './auth-outcome.js';
import { createTestTokenIssuer, testAuthSettings, type TestTokenIssuer } from './test-token-issuer.js';

let issuer: TestTokenIssuer;
let control: ServiceAccessControl;

beforeAll(async () => {
  issuer = await createTestTokenIssuer();
  control = createAccessControl(testAuthSettings(issuer, { admins: ACL_ADMINS }));
});

/** What a caller sees of a refusal: code, message and details. */
function shapeOf(error: unknown) {
  if (!isQueueError(error)) throw new Error(`expected a QueueError, got ${String(error)}`);
  return { code: error.code, message: error.message, details: error.details };
}

function queueNamed(name: string) {
  return ACL_QUEUES.find((queue) => queue.name === name) ?? null;
}

describe('ACL matrix through AccessControl.check', () => {
  it('has 84 rows: 4 callers x 3 queue names x 7 actions', () => {
    expect(aclMatrix()).toHaveLength(84);
    expect(QUEUE_ACTIONS).toHaveLength(7);
  });

  it.each(aclMatrix().map((row) => [`${row.role} ${row.action} on ${row.queueName}`, row] as const))(
    '%s',
    async (_name, row) => {
      const credentials = await issuer.credentials(row.email);
      const queue = queueNamed(row.queueName);
      expect(queue === null).toBe(!row.configured);
      if (row.allowed) {
        const decision = await control.check(credentials, queue, row.action);
        expect(decision.principal?.email).toBe(row.email);
        expect(decision.mayReadAcl).toBe(row.mayReadAcl);
      } else {
        expect(await outcomeOf(control.check(credentials, queue, row.action))).toEqual({
          status: 403,
          wwwAuthenticate: null,
          reason: 'forbidden',
        });
      }
    },
  );

  it('answers an unconfigured queue exactly as a queue the caller may not use (names cannot be probed)', async () => {
    for (const email of [ACL_USERS.producer, ACL_USERS.consumer, ACL_USERS.stranger]) {
      const credentials = await issuer.credentials(email);
      const denied = await control.check(credentials, queueNamed('alpha'), 'task.lease').catch((e: unknown) => e);
      const unknown = await control.check(credentials, null, 'task.lease').catch((e: unknown) => e);
      if (email === ACL_USERS.consumer) {
        // The consumer may lease on alpha: compare with a queue it may not lease from instead.
        const other = await control.check(credentials, queueNamed('alpha'), 'task.insert').catch((e: unknown) => e);
        expect(shapeOf(unknown)).toEqual(shapeOf(other));
        continue;
      }
      expect(isQueueError(denied, 'PERMISSION_DENIED')).toBe(true);
      expect(shapeOf(unknown)).toEqual(shapeOf(denied));
      expect((unknown as Error).message).not.toContain('alpha');
      expect((unknown as Error).message).not.toContain(email);
    }
  });

  it('grants queue.admin (operator actions) to administrators only, never through an ACL or the consumer scope', async () => {
    const admin = await issuer.credentials(ACL_USERS.admin);
    expect(await outcomeOf(control.check(admin, null, 'queue.admin'))).toMatchObject({ status: 200 });
    expect(await outcomeOf(control.check(admin, queueNamed('alpha'), 'queue.admin'))).toMatchObject({ status: 200 });
    for (const email of [ACL_USERS.producer, ACL_USERS.consumer, ACL_USERS.stranger]) {
      const credentials = await issuer.credentials(email);
      expect(await outcomeOf(control.check(credentials, queueNamed('alpha'), 'queue.admin')), email).toMatchObject({
        status: 403,
      });
      expect(await outcomeOf(control.check(credentials, null, 'queue.admin')), email).toMatchObject({ status: 403 });
    }
    const consumerScoped = await issuer.credentials(ACL_USERS.admin, [TASKQUEUE_CONSUMER_SCOPE]);
    expect(await outcomeOf(control.check(consumerScoped, null, 'queue.admin'))).toMatchObject({ status: 403 });
  });

  it('makes queue.xml <admin-email> entries administrators too', async () => {
    const withConfigAdmins = createAccessControl(testAuthSettings(issuer), {
      configAdmins: aclMatrixConfig().adminEmails.concat(['root@example.com']),
    });
    const decision = await withConfigAdmins.check(await issuer.credentials('Root@Example.com'), null, 'task.delete');
    expect(decision.mayReadAcl).toBe(true);
    expect(
      await outcomeOf(
        withConfigAdmins.check(await issuer.credentials(ACL_USERS.admin), queueNamed('alpha'), 'task.get'),
      ),
    ).toMatchObject({
      status: 403,
    });
  });

  it('applies scopes before the ACL, to administrators as well', async () => {
    const consumerScoped = await issuer.credentials(ACL_USERS.admin, [TASKQUEUE_CONSUMER_SCOPE]);
    expect(await outcomeOf(control.check(consumerScoped, queueNamed('alpha'), 'task.insert'))).toEqual({
      status: 403,
      wwwAuthenticate:
        'Bearer realm="taskqueue", error="insufficient_scope", scope="https://www.googleapis.com/auth/taskqueue"',
      reason: 'insufficientPermissions',
    });
    await expect(control.check(consumerScoped, queueNamed('alpha'), 'task.lease')).resolves.toMatchObject({
      mayReadAcl: true,
    });
  });

  it('lets the consumer scope do every consuming action the ACL allows, and queue.get', async () => {
    const credentials = await issuer.credentials(ACL_USERS.consumer, ['taskqueue.consumer']);
    for (const action of QUEUE_ACTIONS) {
      const outcome = await outcomeOf(control.check(credentials, queueNamed('alpha'), action));
      expect(outcome.status, action).toBe(action === 'task.insert' ? 403 : 200);
    }
  });
});
