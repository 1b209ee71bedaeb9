import { afterEach, describe, expect, it } from 'vitest';
import type { AccessControl } from '../../src/auth/access-control.js';
import { QueueError } from '../../src/core/errors.js';
import { pullQueue } from '../helpers/configs.js';
import { pushQueue } from '../helpers/push-sink.js';
import { openHarness, type Harness } from './harness.js';

/**
 * Cloud Tasks v2's queue methods over REST (src/http/cloudtasks), through
 * createApp as a client sends them: proto3 JSON both ways, errors as
 * google.rpc.Status in Cloud Tasks' words, the AccessControl seam of v1beta2.
 */
const PARENT = '/v2/projects/local/locations/us-central1';
const NAME = 'projects/local/locations/us-central1/queues';

/** Lets in a bearer `admin` (an administrator) and `reader` (queue.get only); anything else is 401. */
const TOKENS: AccessControl = {
  async check(credentials, _queue, action) {
    const token = credentials.authorization?.replace(/^Bearer /, '');
    if (token === 'admin') return { principal: { email: 'admin@example.com', scopes: [] }, mayReadAcl: true };
    if (token === 'reader' && action === 'queue.get')
      return { principal: { email: 'reader@example.com', scopes: [] }, mayReadAcl: false };
    if (token === 'reader') throw new QueueError('PERMISSION_DENIED', 'The caller does not have permission');
    throw new QueueError('UNAUTHENTICATED', 'Request is missing required authentication credential.', {
      wwwAuthenticate: 'Bearer realm="taskqueue"',
    });
  },
};
const ADMIN = { authorization: 'Bearer admin' };

describe('Cloud Tasks v2 queues over REST', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const open = async () => {
    h = await openHarness('postgres', {
      queues: [
        pullQueue('pulled'),
        pushQueue('file-push', 'http://127.0.0.1:9', { ratePerSecond: 20, bucketSize: 40 }),
      ],
      accessControl: TOKENS,
      open: { pushBaseUrl: 'http://127.0.0.1:9', dispatch: false },
    });
    return h;
  };

  it('creates a queue with defaults, gets it in proto3 JSON, and lists the push queues of both sources', async () => {
    const { call, t } = await open();
    const made = await call(`${PARENT}/queues`, {
      method: 'POST',
      headers: ADMIN,
      body: {
        name: `${NAME}/api-made`,
        retryConfig: { maxAttempts: 5, minBackoff: '0.5s', maxRetryDuration: '3600s' },
      },
    });
    expect(made.status).toBe(200);
    expect(made.json).toEqual({
      name: `${NAME}/api-made`,
      rateLimits: { maxDispatchesPerSecond: 500, maxBurstSize: 100, maxConcurrentDispatches: 1000 },
      retryConfig: {
        maxAttempts: 5,
        maxRetryDuration: '3600s',
        minBackoff: '0.500s',
        maxBackoff: '3600s',
        maxDoublings: 16,
      },
      state: 'RUNNING',
    });
    // The queue model underneath: 4 retries after the first attempt, the age limit, the backoff.
    const config = t.service.getQueue('api-made').config;
    expect(config.maxLeases).toBe(4);
    expect(config.retry).toEqual({
      ageLimitSeconds: 3600,
      minBackoffSeconds: 0.5,
      maxBackoffSeconds: 3600,
      maxDoublings: 16,
    });

    const got = await call(`${PARENT}/queues/file-push?%24alt=json%3Benum-encoding%3Dint`, { headers: ADMIN });
    expect(got.json).toMatchObject({
      name: `${NAME}/file-push`,
      rateLimits: { maxDispatchesPerSecond: 20, maxBurstSize: 40 },
      retryConfig: { maxAttempts: -1, maxRetryDuration: '0s', minBackoff: '0.100s' },
      state: 1,
    });

    const listed = await call(`${PARENT}/queues`, { headers: { authorization: 'Bearer reader' } });
    expect(listed.status).toBe(200);
    // `default` is the file's push queue too; `pulled` is a pull queue (v1beta2's).
    expect(listed.json.queues.map((q: { name: string }) => q.name)).toEqual([
      `${NAME}/api-made`,
      `${NAME}/default`,
      `${NAME}/file-push`,
    ]);
  });

  it('pages with an opaque, stable token and filters by state', async () => {
    const { call } = await open();
    for (const id of ['a-1', 'a-2', 'a-3'])
      await call(`${PARENT}/queues`, { method: 'POST', headers: ADMIN, body: { name: `${NAME}/${id}` } });
    const first = await call(`${PARENT}/queues?pageSize=2`, { headers: ADMIN });
    expect(first.json.queues.map((q: { name: string }) => q.name)).toEqual([`${NAME}/a-1`, `${NAME}/a-2`]);
    const token = first.json.nextPageToken as string;
    // A queue made between pages moves nothing: the token holds the last name, not an offset.
    await call(`${PARENT}/queues`, { method: 'POST', headers: ADMIN, body: { name: `${NAME}/a-0` } });
    const second = await call(`${PARENT}/queues?pageSize=2&pageToken=${token}`, { headers: ADMIN });
    expect(second.json.queues.map((q: { name: string }) => q.name)).toEqual([`${NAME}/a-3`, `${NAME}/default`]);
    expect((await call(`${PARENT}/queues?pageSize=2&pageToken=${token}`, { headers: ADMIN })).json).toEqual(
      second.json,
    );

    await call(`${PARENT}/queues/a-2:pause`, { method: 'POST', headers: ADMIN });
    const paused = await call(`${PARENT}/queues?filter=${encodeURIComponent('state: PAUSED')}`, { headers: ADMIN });
    expect(paused.json.queues.map((q: { name: string; state: string }) => [q.name, q.state])).toEqual([
      [`${NAME}/a-2`, 'PAUSED'],
    ]);
    const bad = await call(`${PARENT}/queues?filter=name%3Dx`, { headers: ADMIN });
    expect(bad.status).toBe(400);
    expect(bad.json.error.status).toBe('INVALID_ARGUMENT');
  });

  it('patches with an updateMask in either spelling, and refuses a file queue saying the file owns it', async () => {
    const { call } = await open();
    await call(`${PARENT}/queues`, { method: 'POST', headers: ADMIN, body: { name: `${NAME}/patched` } });
    const body = {
      name: `${NAME}/patched`,
      rateLimits: { maxDispatchesPerSecond: 7 },
      retryConfig: { maxAttempts: 3, maxDoublings: 2 },
    };
    const camel = await call(`${PARENT}/queues/patched?updateMask=retryConfig.maxAttempts`, {
      method: 'PATCH',
      headers: ADMIN,
      body,
    });
    expect(camel.json.retryConfig.maxAttempts).toBe(3);
    expect(camel.json.retryConfig.maxDoublings).toBe(16);
    expect(camel.json.rateLimits.maxDispatchesPerSecond).toBe(500);
    const snake = await call(
      `${PARENT}/queues/patched?updateMask=rate_limits.max_dispatches_per_second,retry_config.max_doublings`,
      {
        method: 'PATCH',
        headers: ADMIN,
        body,
      },
    );
    expect(snake.json.rateLimits).toEqual({
      maxDispatchesPerSecond: 7,
      maxBurstSize: 7,
      maxConcurrentDispatches: 1000,
    });
    expect(snake.json.retryConfig).toMatchObject({ maxAttempts: 3, maxDoublings: 2 });

    const owned = await call(`${PARENT}/queues/file-push?updateMask=rateLimits`, {
      method: 'PATCH',
      headers: ADMIN,
      body: { rateLimits: { maxDispatchesPerSecond: 1 } },
    });
    expect(owned.status).toBe(400);
    expect(owned.json.error).toMatchObject({ code: 400, status: 'FAILED_PRECONDITION' });
    expect(owned.json.error.message).toMatch(/the file owns it/);
    const badMask = await call(`${PARENT}/queues/patched?updateMask=name`, { method: 'PATCH', headers: ADMIN, body });
    expect(badMask.json.error.status).toBe('INVALID_ARGUMENT');
  });

  it('deletes, purges, pauses and resumes, audited as the caller with source cloudtasks', async () => {
    const { call, t } = await open();
    await call(`${PARENT}/queues`, { method: 'POST', headers: ADMIN, body: { name: `${NAME}/gone` } });
    await t.service.getQueue('gone').add({ payload: 'x' });
    const purged = await call(`${PARENT}/queues/gone:purge`, { method: 'POST', headers: ADMIN });
    expect(purged.json.purgeTime).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await call(`${PARENT}/queues/gone:pause`, { method: 'POST', headers: ADMIN })).json.state).toBe('PAUSED');
    expect((await call(`${PARENT}/queues/gone:resume`, { method: 'POST', headers: ADMIN })).json.state).toBe('RUNNING');
    expect((await call(`${PARENT}/queues/gone`, { method: 'DELETE', headers: ADMIN })).json).toEqual({});

    const again = await call(`${PARENT}/queues`, { method: 'POST', headers: ADMIN, body: { name: `${NAME}/gone` } });
    expect(again.status).toBe(400);
    expect(again.json.error).toEqual({
      code: 400,
      message: 'The queue cannot be created because a queue with this name existed too recently.',
      status: 'FAILED_PRECONDITION',
    });
    const missing = await call(`${PARENT}/queues/gone`, { headers: ADMIN });
    expect(missing.json.error).toEqual({
      code: 404,
      message:
        'Queue does not exist. If you just created the queue, wait at least a minute for the queue to initialize.',
      status: 'NOT_FOUND',
    });
    expect((await call(`${PARENT}/queues/gone`, { method: 'DELETE', headers: ADMIN })).json.error.message).toBe(
      'Requested entity was not found.',
    );
    const audit = await t.service.auditLog.list({ limit: 10, queue: 'gone' });
    expect(audit.map((e) => [e.action, e.actor, e.source, e.count]).reverse()).toEqual([
      ['create_queue', 'admin@example.com', 'cloudtasks', 0],
      ['purge', 'admin@example.com', 'cloudtasks', 1],
      ['pause', 'admin@example.com', 'cloudtasks', 0],
      ['resume', 'admin@example.com', 'cloudtasks', 0],
      ['delete_queue', 'admin@example.com', 'cloudtasks', 0],
    ]);
  });

  it('refuses bad input naming the field, other projects and locations, and callers the access control refuses', async () => {
    const { call } = await open();
    const exists = await call(`${PARENT}/queues`, {
      method: 'POST',
      headers: ADMIN,
      body: { name: `${NAME}/file-push` },
    });
    expect(exists.json.error).toEqual({ code: 409, message: 'Queue already exists', status: 'ALREADY_EXISTS' });
    const unknown = await call(`${PARENT}/queues`, {
      method: 'POST',
      headers: ADMIN,
      body: { name: `${NAME}/u`, colour: 'red' },
    });
    expect(unknown.json.error.message).toBe(
      'Invalid JSON payload received. Unknown name "colour" at \'queue\': Cannot find field.',
    );
    const rate = await call(`${PARENT}/queues`, {
      method: 'POST',
      headers: ADMIN,
      body: { name: `${NAME}/r`, rateLimits: { maxDispatchesPerSecond: 501 } },
    });
    expect(rate.json.error.message).toMatch(/queue.rate_limits.max_dispatches_per_second/);
    const badName = await call(`${PARENT}/queues`, { method: 'POST', headers: ADMIN, body: { name: 'q' } });
    expect(badName.json.error.message).toMatch(/^Queue name must be formatted/);
    const duration = await call(`${PARENT}/queues`, {
      method: 'POST',
      headers: ADMIN,
      body: { name: `${NAME}/d`, retryConfig: { minBackoff: '3 seconds' } },
    });
    expect(duration.json.error.message).toMatch(/queue.retry_config.min_backoff/);

    for (const path of [
      '/v2/projects/other/locations/us-central1/queues',
      '/v2/projects/local/locations/europe-west1/queues',
    ]) {
      const other = await call(path, { headers: ADMIN });
      expect(other.status).toBe(404);
      expect(other.json.error.status).toBe('NOT_FOUND');
    }
    expect((await call('/v2/projects/local/locations', { headers: ADMIN })).json).toEqual({
      locations: [{ name: 'projects/local/locations/us-central1', locationId: 'us-central1' }],
    });

    const anonymous = await call(`${PARENT}/queues/file-push`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error.status).toBe('UNAUTHENTICATED');
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="taskqueue"');
    const reader = await call(`${PARENT}/queues`, {
      method: 'POST',
      headers: { authorization: 'Bearer reader' },
      body: { name: `${NAME}/x` },
    });
    expect(reader.json.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
  });
});
