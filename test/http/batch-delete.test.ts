import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AccessControl } from '../../src/auth/access-control.js';
import { QueueError } from '../../src/core/errors.js';
import { openHarness, queuePath, type Harness } from './harness.js';

const batchDelete = `${queuePath()}/tasks:batchDelete`;

describe('extension: POST .../tasks:batchDelete', () => {
  let h: Harness;
  afterEach(async () => h.close());

  async function seeded(options: { accessControl?: AccessControl } = {}): Promise<Harness> {
    const harness = await openHarness('postgres', options);
    await harness.t.service
      .getQueue('q')
      .add(['a', 'b', 'c', 'gone'].map((name) => ({ name, payload: Buffer.from(name) })));
    await harness.t.service.getQueue('q').deleteTask('gone');
    return harness;
  }

  it('deletes the named tasks in one core call and says which were deleted and which were not found', async () => {
    h = await seeded();
    await h.lease('numTasks=1&leaseSecs=600');
    const spy = vi.spyOn(h.t.service.getQueue('q'), 'deleteTask');
    const r = await h.call(batchDelete, { method: 'POST', body: { ids: ['c', 'never', 'a', 'gone', 'a'] } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ deleted: ['c', 'a'], notFound: ['never', 'gone'] });
    expect(spy).toHaveBeenCalledTimes(1);
    expect(spy).toHaveBeenCalledWith(['c', 'never', 'a', 'gone']);
    expect(await h.t.sql(`select name from ${h.t.schema}.tasks`)).toEqual([{ name: 'b' }]);
  });

  it('takes the short form of the path, fields and prettyPrint as every method does', async () => {
    h = await seeded();
    const r = await h.call(
      '/taskqueue/v1beta2/projects/taskqueues/q/tasks:batchDelete?fields=deleted&prettyPrint=false',
      {
        method: 'POST',
        body: { ids: ['a', 'zz'] },
      },
    );
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"deleted":["a"]}');
    const bad = await h.call(`${batchDelete}?fields=items`, { method: 'POST', body: { ids: ['b'] } });
    expect(bad.status).toBe(400);
    expect(await h.t.sql(`select name from ${h.t.schema}.tasks order by name`)).toEqual([{ name: 'b' }, { name: 'c' }]);
  });

  it.each([
    ['not JSON', '{ids', 'JSON'],
    ['no ids', {}, 'ids'],
    ['ids not an array', { ids: 'a' }, 'ids'],
    ['empty ids', { ids: [] }, 'ids'],
    ['1001 ids', { ids: Array.from({ length: 1001 }, (_, i) => `n${i}`) }, '1000'],
    ['an invalid name', { ids: ['a', 'no spaces'] }, 'ids[1]'],
    ['a number', { ids: ['a', 7] }, 'ids[1]'],
    ['another field', { ids: ['a'], force: true }, 'force'],
  ])('refuses %s with 400 and deletes nothing', async (_what, body, message) => {
    h = await seeded();
    const r = await h.call(batchDelete, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain(message);
    expect(await h.t.sql(`select count(*)::int as n from ${h.t.schema}.tasks`)).toEqual([{ n: 3 }]);
  });

  it('is authorised as tasks.delete, before the body is read', async () => {
    const actions: string[] = [];
    const deny: AccessControl = {
      async check(_credentials, _queue, action) {
        actions.push(action);
        throw new QueueError('PERMISSION_DENIED', 'no', { wwwAuthenticate: 'Bearer error="insufficient_scope"' });
      },
    };
    h = await seeded({ accessControl: deny });
    const r = await h.call(batchDelete, {
      method: 'POST',
      body: '{broken',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(403);
    expect(actions).toEqual(['task.delete']);
    expect(await h.t.sql(`select count(*)::int as n from ${h.t.schema}.tasks`)).toEqual([{ n: 3 }]);
  });

  it('allows POST only, and 404s an unknown queue', async () => {
    h = await seeded();
    expect((await h.call(batchDelete, { method: 'GET' })).status).toBe(405);
    expect(
      (await h.call(`${queuePath('nosuch')}/tasks:batchDelete`, { method: 'POST', body: { ids: ['a'] } })).status,
    ).toBe(404);
  });

  describe.each(['postgres', 'pglite'] as const)('with leaseTimestamps (fenced), %s', (engine) => {
    it('deletes a task only under the token it was leased with, generated and chosen names alike', async () => {
      h = await openHarness(engine);
      const queue = h.t.service.getQueue('q');
      await queue.add([{ name: 'chosen' }, {}, {}]);
      const first = await h.lease('numTasks=3&leaseSecs=1');
      expect(first).toHaveLength(3);
      // The lease ran out and another lease took the tasks: the first tokens are stale.
      await h.t.sql(`update ${h.t.schema}.tasks set eta = now() - interval '1 second'`);
      const second = await h.lease('numTasks=3&leaseSecs=600');
      const token = (tasks: typeof first, id: string) => tasks.find((task) => task.id === id)!.leaseTimestamp as string;
      const ids = first.map((task) => task.id as string);
      const stale = await h.call(batchDelete, {
        method: 'POST',
        body: { ids, leaseTimestamps: ids.map((id) => token(first, id)) },
      });
      expect(stale.json).toEqual({ deleted: [], notFound: ids });
      const [generated, other] = ids.filter((id) => id !== 'chosen');
      // Mixed: one stale token, two current ones (one as an integer); a name repeated with its token counts once.
      const body = {
        ids: ['chosen', generated, other, generated],
        leaseTimestamps: [
          token(second, 'chosen'),
          Number(token(second, generated!)),
          token(first, other!),
          token(second, generated!),
        ],
      };
      const r = await h.call(batchDelete, { method: 'POST', body });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ deleted: ['chosen', generated], notFound: [other] });
      expect(await h.t.sql(`select name from ${h.t.schema}.tasks`)).toEqual([{ name: other }]);
      // A chosen name deleted by its holder is tombstoned, as by tasks.delete.
      await expect(queue.getTask('chosen')).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    });

    it.each([
      ['fewer tokens than ids', { ids: ['a', 'b'], leaseTimestamps: ['1'] }, 'one lease token per id'],
      ['a token not a number', { ids: ['a'], leaseTimestamps: ['12x'] }, 'leaseTimestamps[0]'],
      ['a negative token', { ids: ['a', 'b'], leaseTimestamps: ['1', -1] }, 'leaseTimestamps[1]'],
      ['a token past 16 digits', { ids: ['a'], leaseTimestamps: ['12345678901234567'] }, 'leaseTimestamps[0]'],
      ['an empty token', { ids: ['a'], leaseTimestamps: [''] }, 'leaseTimestamps[0]'],
      ['a name twice with two tokens', { ids: ['a', 'a'], leaseTimestamps: ['1', '2'] }, 'twice'],
    ])('refuses %s with 400 and deletes nothing', async (_what, body, message) => {
      h = await openHarness(engine);
      await h.t.service.getQueue('q').add([{ name: 'a' }, { name: 'b' }]);
      const r = await h.call(batchDelete, { method: 'POST', body });
      expect(r.status).toBe(400);
      expect(r.json.error.message).toContain(message);
      expect(await h.t.sql(`select count(*)::int as n from ${h.t.schema}.tasks`)).toEqual([{ n: 2 }]);
    });
  });
});
