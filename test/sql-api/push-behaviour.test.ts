import { describe, expect, it } from 'vitest';
import { PUSH_LIMITS } from '../../src/core/push/push-rules.js';
import { DEFAULT_PUSH_SETTINGS } from '../../src/core/queue-config.js';
import { usePushFixture } from '../push/push-fixture.js';
import { pullQueue } from '../helpers/configs.js';
import { ENGINES, type TestService } from '../helpers/engines.js';
import { pushQueue } from '../helpers/push-sink.js';
import { errorCodeOf, PATH_KINDS } from './api-paths.js';
import { pushPath } from './push-paths.js';

/**
 * One behaviour suite for adding push tasks, two ways in: the in-process
 * API and add_push_task, with the same expectations, on
 * PostgreSQL and on the embedded engine. The SQL path's rules are written
 * from src/core/push/push-rules.ts, which the service's push-task.ts reads.
 */
describe.each(ENGINES.flatMap((engine) => PATH_KINDS.map((kind) => [engine, kind] as const)))(
  'push tasks, %s, %s path',
  (engine, kind) => {
    const fixture = usePushFixture();
    const start = () =>
      fixture.start(engine, {
        queues: (url) => [
          // Rate 0: nothing is dispatched, so the stored rows can be read as added.
          pushQueue('h', url, { ratePerSecond: 0 }),
          pushQueue('d', url),
          { ...pushQueue('nowhere', url), push: { ...DEFAULT_PUSH_SETTINGS, targetUrl: null } },
          pullQueue('p'),
        ],
      });
    const stored = async (t: TestService, name: string) =>
      (
        await t.sql<{ push: unknown; payload: string }>(
          `select push, encode(payload, 'hex') as payload from ${t.schema}.tasks where name = $1`,
          [name],
        )
      )[0];

    it('refuses every broken rule with the same error code', async () => {
      const { t } = await start();
      const api = pushPath(kind, t);
      const add = (task: Parameters<typeof api.addPush>[1], queue = 'h') => errorCodeOf(api.addPush(queue, task));
      expect(await add({}, 'missing')).toBe('UNKNOWN_QUEUE');
      // A push task's field given: a pull queue refuses it (the in-process add of nothing at all is a pull task).
      expect(await add({ method: 'POST' }, 'p')).toBe('INVALID_QUEUE_MODE');
      expect(await add({ method: 'PULL' })).toBe('INVALID_QUEUE_MODE');
      expect(await add({}, 'nowhere')).toBe('INVALID_REQUEST');
      expect(await add({ method: 'OPTIONS' })).toBe('INVALID_REQUEST');
      expect(await add({ method: 'post' })).toBe('INVALID_REQUEST');
      expect(await add({ url: 'no-slash' })).toBe('INVALID_REQUEST');
      expect(await add({ url: '/a b' })).toBe('INVALID_REQUEST');
      expect(await add({ url: '/a#fragment' })).toBe('INVALID_REQUEST');
      expect(await add({ url: `/${'x'.repeat(PUSH_LIMITS.maxUrlLength)}` })).toBe('INVALID_REQUEST');
      for (const method of ['GET', 'HEAD', 'DELETE'])
        expect(await add({ method, payload: Buffer.from('body') })).toBe('INVALID_PAYLOAD');
      expect(await add({ headers: [['Bad Name', 'x']] })).toBe('INVALID_REQUEST');
      expect(await add({ headers: [['A', 'line\r\nbreak']] })).toBe('INVALID_REQUEST');
      expect(await add({ dispatchDeadlineSeconds: PUSH_LIMITS.minDeadlineSeconds - 1 })).toBe('INVALID_REQUEST');
      expect(await add({ dispatchDeadlineSeconds: PUSH_LIMITS.maxDeadlineSeconds + 1 })).toBe('INVALID_REQUEST');
      for (const retryOptions of [
        { taskRetryLimit: -1 },
        { taskRetryLimit: 1.5 },
        { taskRetryLimit: 2 ** 31 },
        { maxDoublings: 64 },
        { taskAgeLimitSeconds: 0 },
        { minBackoffSeconds: 1e12 + 1 },
        { minBackoffSeconds: 5, maxBackoffSeconds: 1 },
        { maxBackoffSeconds: '60' as unknown as number },
      ]) {
        expect(await add({ retryOptions }), JSON.stringify(retryOptions)).toBe('INVALID_REQUEST');
      }
      expect(await add({ name: 'not a name' })).toBe('INVALID_TASK_NAME');
      expect(await add({ etaUsec: (Date.now() + 31 * 86_400_000) * 1000 })).toBe('INVALID_ETA');
      // 100 KiB counting url, header names and values, and body: '/x' + 'A' + 'b' is 4 bytes.
      const body = (n: number) => Buffer.alloc(n, 1);
      expect(await add({ url: '/x', headers: [['A', 'b']], payload: body(PUSH_LIMITS.maxTaskBytes - 3) })).toBe(
        'TASK_TOO_LARGE',
      );
      await api.addPush('h', {
        name: 'at-limit',
        url: '/x',
        headers: [['A', 'b']],
        payload: body(PUSH_LIMITS.maxTaskBytes - 4),
      });
      // A dropped header counts for nothing.
      await api.addPush('h', {
        url: '/x',
        headers: [['X-AppEngine-TaskName', 'forged']],
        payload: body(PUSH_LIMITS.maxTaskBytes - 2),
      });
      // Names and tombstones as for pull tasks.
      expect(await add({ name: 'at-limit' })).toBe('TASK_ALREADY_EXISTS');
      await t.service.getQueue('h').deleteTask('at-limit');
      expect(await add({ name: 'at-limit' })).toBe('TOMBSTONED_TASK');
      expect(await t.sql(`select name from ${t.schema}.tasks where name = 'at-limit'`)).toEqual([]);
    });

    it('stores the request as the service does: defaults, PUSH as POST, dropped headers, the deadline', async () => {
      const { t } = await start();
      const api = pushPath(kind, t);
      const plain = await api.addPush('h', {});
      expect(plain).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(await stored(t, plain)).toEqual({
        push: { url: '/_ah/queue/h', method: 'POST', headers: [], retry: null, deadlineSeconds: null },
        payload: '',
      });
      await api.addPush('h', {
        name: 'full',
        url: '/work?id=7',
        method: 'PUSH',
        headers: [
          ['X-AppEngine-TaskName', 'forged'],
          ['x-appengine-failfast', 'true'],
          ['X-CloudTasks-QueueName', 'forged'],
          ['Content-Length', '9'],
          ['X-Mine', '1'],
          ['X-Mine', '2'],
        ],
        payload: Buffer.from([0, 1, 255]),
        dispatchDeadlineSeconds: 30,
      });
      expect(await stored(t, 'full')).toEqual({
        push: {
          url: '/work?id=7',
          method: 'POST',
          headers: [
            ['x-appengine-failfast', 'true'],
            ['X-Mine', '1'],
            ['X-Mine', '2'],
          ],
          retry: null,
          deadlineSeconds: 30,
        },
        payload: '0001ff',
      });
      // retryOptions: the fields given, App Engine's defaults for the rest, a lone bound moving the other.
      const retries = [
        [
          { taskRetryLimit: 2, minBackoffSeconds: 5 },
          {
            retryLimit: 2,
            parameters: { ageLimitSeconds: null, minBackoffSeconds: 5, maxBackoffSeconds: 3600, maxDoublings: 16 },
          },
        ],
        [
          { maxBackoffSeconds: 0.05 },
          {
            retryLimit: null,
            parameters: { ageLimitSeconds: null, minBackoffSeconds: 0.05, maxBackoffSeconds: 0.05, maxDoublings: 16 },
          },
        ],
        [
          { minBackoffSeconds: 7200 },
          {
            retryLimit: null,
            parameters: { ageLimitSeconds: null, minBackoffSeconds: 7200, maxBackoffSeconds: 7200, maxDoublings: 16 },
          },
        ],
        [
          { taskAgeLimitSeconds: 86400, maxDoublings: 0, taskRetryLimit: 0 },
          {
            retryLimit: 0,
            parameters: { ageLimitSeconds: 86400, minBackoffSeconds: 0.1, maxBackoffSeconds: 3600, maxDoublings: 0 },
          },
        ],
        [
          {},
          {
            retryLimit: null,
            parameters: { ageLimitSeconds: null, minBackoffSeconds: 0.1, maxBackoffSeconds: 3600, maxDoublings: 16 },
          },
        ],
      ] as const;
      for (const [i, [retryOptions, retry]] of retries.entries()) {
        await api.addPush('h', { name: `retry-${i}`, retryOptions });
        expect(
          ((await stored(t, `retry-${i}`))!.push as { retry: unknown }).retry,
          JSON.stringify(retryOptions),
        ).toEqual(retry);
      }
      for (const method of ['GET', 'HEAD', 'DELETE', 'PUT', 'PATCH']) {
        await api.addPush('h', {
          name: `m-${method}`,
          method,
          ...(method === 'PUT' ? { payload: Buffer.from('x') } : {}),
        });
        expect(((await stored(t, `m-${method}`))!.push as { method: string }).method).toBe(method);
      }
      const later = (Date.now() + 3_600_000) * 1000;
      await api.addPush('h', { name: 'later', etaUsec: later });
      const eta = await t.sql<{ usec: string }>(
        `select (extract(epoch from eta) * 1000000)::int8::text as usec from ${t.schema}.tasks where name = 'later'`,
      );
      expect(Number(eta[0]!.usec)).toBe(later);
    });

    it('is delivered by the dispatcher: method, url, headers and body', async () => {
      const { t, sink } = await start();
      const api = pushPath(kind, t);
      const name = await api.addPush('d', {
        url: '/hook?x=1',
        method: 'PUT',
        headers: [['X-Mine', 'yes']],
        payload: Buffer.from('{"a":1}'),
      });
      await sink.waitFor(1);
      const request = sink.requests[0]!;
      expect(request).toMatchObject({ method: 'PUT', url: '/hook?x=1' });
      expect(request.body.toString()).toBe('{"a":1}');
      expect(request.headers['x-mine']).toBe('yes');
      expect(request.headers['x-appengine-taskname']).toBe(name);
      expect(request.headers['x-appengine-queuename']).toBe('d');
    });
  },
);
