import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedNameTime, generateTaskName } from '../../src/core/generated-name.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import {
  ENGINES,
  openTestService,
  testPGlite,
  testPgUrl,
  type TestEngine,
  type TestService,
} from '../helpers/engines.js';
import { apiPath, errorCodeOf, PATH_KINDS, type ApiPath } from './api-paths.js';

/**
 * One behaviour suite, two ways in: the in-process API and the SQL
 * functions, with the same expectations, on PostgreSQL and on
 * the embedded engine. Each test uses queues of its own.
 */
const QUEUES = [
  'order',
  'form',
  'rules',
  'edges',
  'held',
  'tags',
  'groups',
  'modify',
  'delete',
  'args',
  'notify',
  'paused',
];
const config = serviceConfig([
  ...QUEUES.map((name) => pullQueue(name)),
  pullQueue('limited', { storageLimitBytes: 100 }),
  pullQueue('retry', { maxLeases: 2 }),
  pullQueue('rated', { leaseRate: { calls: 2, windowSeconds: 3600 } }),
  { ...pullQueue('pushed'), mode: 'push' },
]);

const WEEK = 604_800;
const usecNow = () => Date.now() * 1000;

describe.each(ENGINES.flatMap((engine) => PATH_KINDS.map((kind) => [engine, kind] as const)))(
  '%s, %s path',
  (engine, kind) => {
    let t: TestService;
    let api: ApiPath;
    beforeAll(async () => {
      t = await openTestService(engine, config);
      api = apiPath(kind, t);
    });
    afterAll(async () => t.close());

    const count = async (table: string, queue: string) =>
      Number(
        (
          await t.sql<{ n: string }>(
            `select count(*) as n from ${t.schema}.${table} x join ${t.schema}.queues q on q.id = x.queue_id where q.name = $1`,
            [queue],
          )
        )[0]!.n,
      );
    /**
     * Makes a batch just added due, as a moment later would: tasks of one add
     * are due one microsecond apart from the add's now(), and the embedded
     * engine's clock moves in milliseconds, so a lease in the same millisecond
     * would find only the first due (tests backdate, never sleep).
     */
    const makeDue = (queue: string) =>
      t.sql(
        `update ${t.schema}.tasks set eta = eta - interval '1 second' where queue_id = (select id from ${t.schema}.queues where name = $1)`,
        [queue],
      );
    /** Lets every lease of a queue run out, as time would (tests backdate, never sleep). */
    const expireLeases = (queue: string) =>
      t.sql(
        `update ${t.schema}.tasks set eta = now() - interval '1 second' where queue_id = (select id from ${t.schema}.queues where name = $1)`,
        [queue],
      );

    it('adds a batch and leases it oldest first: names, payloads byte for byte, tags, retry count 1', async () => {
      const payloads = [Buffer.from([0, 1, 2, 255]), Buffer.from('second'), Buffer.alloc(0)];
      const names = await api.add('order', [
        { name: 'first', payload: payloads[0]!, tag: 'a' },
        { payload: payloads[1]! },
        { name: 'third' },
      ]);
      await makeDue('order');
      expect(names[0]).toBe('first');
      expect(names[2]).toBe('third');
      const leased = await api.lease('order', { maxTasks: 10, leaseSeconds: 60 });
      expect(leased.map((task) => task.name)).toEqual(names);
      expect(leased.map((task) => task.payload)).toEqual(payloads);
      expect(leased.map((task) => task.tag)).toEqual(['a', null, null]);
      expect(leased.map((task) => task.retryCount)).toEqual([1, 1, 1]);
      expect(await api.lease('order', { maxTasks: 10, leaseSeconds: 60 })).toEqual([]);
    });

    it("generates names in the service's form, and a task with an ETA ahead waits for it", async () => {
      const [now, later] = await api.add('form', [{}, { etaUsec: usecNow() + 3_600_000_000 }]);
      for (const name of [now!, later!]) {
        const made = generatedNameTime(name);
        expect(made).not.toBeNull();
        expect(Math.abs(made! - Date.now())).toBeLessThan(60_000);
      }
      expect((await api.lease('form', { maxTasks: 10, leaseSeconds: 60 })).map((task) => task.name)).toEqual([now]);
    });

    it('refuses every broken add rule with its code, and stores nothing of the refused batch', async () => {
      const ok = { name: 'fine', payload: Buffer.from('x') };
      const cases: [string, () => Promise<unknown>][] = [
        ['INVALID_TASK_NAME', () => api.add('rules', [ok, { name: 'not a name' }])],
        ['INVALID_TASK_NAME', () => api.add('rules', [ok, { name: 'n'.repeat(501) }])],
        ['TASK_TOO_LARGE', () => api.add('rules', [ok, { payload: Buffer.alloc(1024 * 1024 + 1) }])],
        ['INVALID_TAG', () => api.add('rules', [ok, { tag: 't'.repeat(501) }])],
        ['INVALID_ETA', () => api.add('rules', [ok, { etaUsec: usecNow() + 31 * 24 * 3600 * 1_000_000 }])],
        [
          'TOO_MANY_TASKS',
          () =>
            api.add(
              'rules',
              Array.from({ length: 101 }, () => ({})),
            ),
        ],
        ['DUPLICATE_TASK_NAME', () => api.add('rules', [ok, { name: 'fine' }])],
        ['UNKNOWN_QUEUE', () => api.add('no-such-queue', [ok])],
        ['INVALID_QUEUE_MODE', () => api.add('pushed', [ok])],
        ['STORAGE_LIMIT_EXCEEDED', () => api.add('limited', [ok, { payload: Buffer.alloc(200) }])],
      ];
      for (const [code, call] of cases) expect(await errorCodeOf(call()), code).toBe(code);
      expect(await count('tasks', 'rules')).toBe(0);
      // A live name after tasks the insert already took: the statement fails, and they go with it.
      expect(await api.add('rules', [{ name: 'live' }])).toEqual(['live']);
      expect(await errorCodeOf(api.add('rules', [ok, {}, { name: 'live' }]))).toBe('TASK_ALREADY_EXISTS');
      expect(await errorCodeOf(api.add('rules', [ok, { name: 'twice' }, { name: 'twice' }]))).toBe(
        'DUPLICATE_TASK_NAME',
      );
      expect(await count('tasks', 'rules')).toBe(1);
      expect(await api.delete('rules', 'live')).toBe(true);
      expect(await count('tasks', 'limited')).toBe(0);
      // The limit counts what is stored: a task that fits goes in.
      expect(await api.add('limited', [{ name: 'small', payload: Buffer.alloc(10) }])).toEqual(['small']);
    });

    it('accepts every limit exactly at its boundary (sizes in bytes, not characters)', async () => {
      const names = await api.add('edges', [
        { name: 'n'.repeat(500) },
        { payload: Buffer.alloc(1024 * 1024, 7) },
        { tag: 'é'.repeat(250) },
        { etaUsec: usecNow() + 29 * 24 * 3600 * 1_000_000 },
      ]);
      expect(names).toHaveLength(4);
      expect(await errorCodeOf(api.add('edges', [{ tag: 'é'.repeat(251) }]))).toBe('INVALID_TAG');
      expect(
        await api.add(
          'edges',
          Array.from({ length: 100 }, () => ({})),
        ),
      ).toHaveLength(100);
      expect(await api.lease('edges', { maxTasks: 1000, leaseSeconds: WEEK })).toHaveLength(103);
      // A name that looks generated but whose check fails is an ordinary chosen name: added, and held by a row once deleted.
      const real = generateTaskName();
      const forged = real.slice(0, 23) + (real[23] === 'A' ? 'B' : 'A');
      expect(generatedNameTime(forged)).toBeNull();
      expect(await api.add('edges', [{ name: forged }])).toEqual([forged]);
      expect(await api.delete('edges', forged)).toBe(true);
      expect(await count('task_tombstones', 'edges')).toBe(1);
    });

    it('holds names: a live name, a deleted chosen name (tombstone row), a deleted generated name (its form)', async () => {
      const [generated] = await api.add('held', [{ name: 'chosen' }, {}]).then((names) => [names[1]!]);
      expect(await errorCodeOf(api.add('held', [{ name: 'other' }, { name: 'chosen' }]))).toBe('TASK_ALREADY_EXISTS');
      expect(await errorCodeOf(api.add('held', [{ name: generated! }]))).toBe('TASK_ALREADY_EXISTS');
      expect(await api.delete('held', 'chosen')).toBe(true);
      expect(await api.delete('held', generated!)).toBe(true);
      expect(await errorCodeOf(api.add('held', [{ name: 'chosen' }]))).toBe('TOMBSTONED_TASK');
      expect(await errorCodeOf(api.add('held', [{ name: generated! }]))).toBe('TOMBSTONED_TASK');
      // A name in the form made by anyone else's clock within the period is held too; one made before it is not.
      expect(await errorCodeOf(api.add('held', [{ name: generateTaskName(Date.now() - 3600_000) }]))).toBe(
        'TOMBSTONED_TASK',
      );
      const old = generateTaskName(Date.now() - 8 * 24 * 3600_000);
      expect(await api.add('held', [{ name: old }])).toEqual([old]);
      expect(await count('tasks', 'held')).toBe(1);
      expect(await count('task_tombstones', 'held')).toBe(1);
    });

    it('leases by tag, and by the tag of the oldest task', async () => {
      await api.add('tags', [
        { name: 'u1' },
        { name: 'a1', tag: 'a' },
        { name: 'b1', tag: 'b' },
        { name: 'a2', tag: 'a' },
      ]);
      await makeDue('tags');
      expect((await api.lease('tags', { maxTasks: 10, leaseSeconds: 60, tag: 'a' })).map((x) => x.name)).toEqual([
        'a1',
        'a2',
      ]);
      await api.add('groups', [{ name: 'b1', tag: 'b' }, { name: 'u1' }, { name: 'b2', tag: 'b' }]);
      await makeDue('groups');
      expect(
        (await api.lease('groups', { maxTasks: 10, leaseSeconds: 60, groupByTag: true })).map((x) => x.name),
      ).toEqual(['b1', 'b2']);
      expect(
        (await api.lease('groups', { maxTasks: 10, leaseSeconds: 60, groupByTag: true })).map((x) => x.name),
      ).toEqual(['u1']);
    });

    it('applies the retry limit (dead letter), the pause and the lease rate as the service does', async () => {
      await api.add('retry', [{ name: 'doomed', payload: Buffer.from('p') }]);
      for (let i = 1; i <= 2; i++) {
        expect((await api.lease('retry', { maxTasks: 1, leaseSeconds: 60 })).map((x) => x.retryCount)).toEqual([i]);
        await expireLeases('retry');
      }
      // A worker's last error (sql/0012) travels into the dead letter on either path.
      await t.sql(`update ${t.schema}.tasks set last_error = 'boom' where name = 'doomed'`);
      expect(await api.lease('retry', { maxTasks: 1, leaseSeconds: 60 })).toEqual([]);
      expect(await count('task_dead_letters', 'retry')).toBe(1);
      expect(await t.sql(`select last_error from ${t.schema}.task_dead_letters where name = 'doomed'`)).toEqual([
        { last_error: 'boom' },
      ]);
      expect(await errorCodeOf(api.add('retry', [{ name: 'doomed' }]))).toBe('TOMBSTONED_TASK');

      await api.add('paused', [{ name: 'waiting' }]);
      await t.operate('paused').pause();
      expect(await errorCodeOf(api.lease('paused', { maxTasks: 1, leaseSeconds: 60 }))).toBe('QUEUE_PAUSED');
      await t.operate('paused').resume();
      expect((await api.lease('paused', { maxTasks: 1, leaseSeconds: 60 })).map((x) => x.name)).toEqual(['waiting']);

      await api.add('rated', [{ name: 'r1' }, { name: 'r2' }, { name: 'r3' }]);
      expect(await api.lease('rated', { maxTasks: 1, leaseSeconds: 60 })).toHaveLength(1);
      expect(await api.lease('rated', { maxTasks: 1, leaseSeconds: 60 })).toHaveLength(1);
      expect(await api.lease('rated', { maxTasks: 1, leaseSeconds: 60 })).toEqual([]);
    });

    it('refuses bad lease arguments and leases of unknown or push queues', async () => {
      expect(await errorCodeOf(api.lease('args', { maxTasks: 0, leaseSeconds: 60 }))).toBe('INVALID_REQUEST');
      expect(await errorCodeOf(api.lease('args', { maxTasks: 1001, leaseSeconds: 60 }))).toBe('INVALID_REQUEST');
      expect(await errorCodeOf(api.lease('args', { maxTasks: 1, leaseSeconds: WEEK + 1 }))).toBe('INVALID_REQUEST');
      expect(await errorCodeOf(api.lease('args', { maxTasks: 1, leaseSeconds: 60, tag: 't'.repeat(501) }))).toBe(
        'INVALID_TAG',
      );
      expect(await errorCodeOf(api.lease('pushed', { maxTasks: 1, leaseSeconds: 60 }))).toBe('INVALID_QUEUE_MODE');
      expect(await errorCodeOf(api.lease('no-such-queue', { maxTasks: 1, leaseSeconds: 60 }))).toBe('UNKNOWN_QUEUE');
    });

    it('modifies a lease fenced by its token; 0 releases; unknown and deleted tasks are told apart', async () => {
      await api.add('modify', [{ name: 'm', payload: Buffer.from('m') }, { name: 'gone' }]);
      expect(await api.delete('modify', 'gone')).toBe(true);
      const [task] = await api.lease('modify', { maxTasks: 1, leaseSeconds: 60 });
      const renewed = await api.modify('modify', 'm', task!.token, 120);
      expect(renewed).not.toEqual(task!.token);
      expect(await errorCodeOf(api.modify('modify', 'm', task!.token, 60))).toBe('TASK_LEASE_EXPIRED');
      await api.modify('modify', 'm', renewed, 0);
      const again = await api.lease('modify', { maxTasks: 1, leaseSeconds: 60 });
      expect(again.map((x) => [x.name, x.retryCount])).toEqual([['m', 2]]);
      expect(await errorCodeOf(api.modify('modify', 'm', again[0]!.token, WEEK + 1))).toBe('INVALID_REQUEST');
      expect(await errorCodeOf(api.modify('modify', 'nobody', again[0]!.token, 60))).toBe('UNKNOWN_TASK');
      expect(await errorCodeOf(api.modify('modify', 'gone', again[0]!.token, 60))).toBe('TOMBSTONED_TASK');
    });

    it('deletes leased or not: true, then false; only chosen names leave a tombstone row', async () => {
      const [, generated] = await api.add('delete', [{ name: 'chosen' }, {}]);
      await api.lease('delete', { maxTasks: 1, leaseSeconds: 60 });
      expect(await api.delete('delete', 'chosen')).toBe(true);
      expect(await api.delete('delete', 'chosen')).toBe(false);
      expect(await api.delete('delete', generated!)).toBe(true);
      expect(await api.delete('delete', 'never')).toBe(false);
      expect(await count('tasks', 'delete')).toBe(0);
      expect(await count('task_tombstones', 'delete')).toBe(1);

      const names = await api.add('delete', [{ name: 'many-1' }, {}, { name: 'many-2' }]);
      expect(await api.deleteMany('delete', ['many-2', 'nobody', names[1]!, 'many-2', 'many-1'])).toEqual([
        true,
        false,
        true,
        true,
        true,
      ]);
      expect(await count('tasks', 'delete')).toBe(0);
      expect(await count('task_tombstones', 'delete')).toBe(3);
      expect(
        await errorCodeOf(
          api.deleteMany(
            'delete',
            Array.from({ length: 1001 }, (_, i) => `n${i}`),
          ),
        ),
      ).toBe('TOO_MANY_TASKS');
    });

    it('an add wakes waiting long-polls: it notifies a queue that is waited on', async () => {
      const [{ id }] = (await t.sql<{ id: number }>(`select id from ${t.schema}.queues where name = 'notify'`)) as [
        { id: number },
      ];
      await t.sql(`insert into ${t.schema}.queue_waiters (queue_id, until) values ($1, now() + interval '1 minute')`, [
        id,
      ]);
      const heard = await listenWhile(engine, () => api.add('notify', [{}]));
      expect(heard).toContain(`${t.schema}:${id}`);
    });
  },
);

/** The notifications of channel taskqueue_tasks sent while `action` ran and committed. */
async function listenWhile(engine: TestEngine, action: () => Promise<unknown>): Promise<string[]> {
  const heard: string[] = [];
  if (engine === 'pglite') {
    const instance = await testPGlite();
    const unlisten = await instance.listen('taskqueue_tasks', (payload) => heard.push(payload));
    await action();
    await instance.query('select 1');
    await unlisten();
    return heard;
  }
  const client = new pg.Client({ connectionString: testPgUrl() });
  await client.connect();
  try {
    client.on('notification', (message) => heard.push(message.payload ?? ''));
    await client.query('listen taskqueue_tasks');
    await action();
    // A round trip on the listening connection after the commit: the notification is in by then.
    for (let i = 0; i < 50 && heard.length === 0; i++) await client.query('select pg_sleep(0.01)');
    return heard;
  } finally {
    await client.end();
  }
}
