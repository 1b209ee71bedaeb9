import { afterEach, describe, expect, it } from 'vitest';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

describe.each(ENGINES)('modify lease and delete on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  const open = async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    return t.service.getQueue('q');
  };

  it('extends a held lease from now and hands out a new token', async () => {
    const q = await open();
    await q.add({ name: 'a' });
    const [leased] = await q.leaseTasks({ lease: 10, maxTasks: 1 });
    const extended = await q.modifyTaskLease(leased!, 1, 'hours');
    expect(extended.etaUsec).toBeGreaterThan(leased!.etaUsec + 3_000_000_000);
    expect(extended.retryCount).toBe(1);
    // The old token is stale now: a holder of it cannot extend any more.
    await expect(q.modifyTaskLease(leased!, 10)).rejects.toMatchObject({ code: 'TASK_LEASE_EXPIRED' });
    await q.modifyTaskLease(extended, 20);
  });

  it('releases a lease at once with 0', async () => {
    const q = await open();
    await q.add({ name: 'a' });
    const [leased] = await q.leaseTasks({ lease: 600, maxTasks: 1 });
    await q.modifyTaskLease(leased!, 0);
    const again = await q.leaseTasks({ lease: 600, maxTasks: 1 });
    expect(again.map((x) => [x.name, x.retryCount])).toEqual([['a', 2]]);
  });

  it('fails with TASK_LEASE_EXPIRED after the lease ran out, and fences a stale holder', async () => {
    const q = await open();
    await q.add({ name: 'a' });
    const [first] = await q.leaseTasks({ lease: 60, maxTasks: 1 });
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);
    // Expired, even with what was the right token a moment ago.
    const [row] = await t.sql<{ eta_usec: string }>(
      `select (extract(epoch from eta) * 1000000)::int8::text as eta_usec from ${t.schema}.tasks`,
    );
    await expect(q.modifyTaskLease({ name: 'a', etaUsec: Number(row!.eta_usec) }, 60)).rejects.toMatchObject({
      code: 'TASK_LEASE_EXPIRED',
    });
    // Another consumer leases it; the first holder can never extend the new lease.
    const [second] = await q.leaseTasks({ lease: 60, maxTasks: 1 });
    expect(second?.retryCount).toBe(2);
    await expect(q.modifyTaskLease(first!, 600)).rejects.toMatchObject({ code: 'TASK_LEASE_EXPIRED' });
    const [current] = await t.sql<{ eta_usec: string }>(
      `select (extract(epoch from eta) * 1000000)::int8::text as eta_usec from ${t.schema}.tasks`,
    );
    expect(Number(current!.eta_usec)).toBe(second!.etaUsec);
  });

  it('says why a modify found no task', async () => {
    const q = await open();
    await expect(q.modifyTaskLease({ name: 'nope', etaUsec: 1 }, 10)).rejects.toMatchObject({ code: 'UNKNOWN_TASK' });
    await q.add({ name: 'gone' });
    const [leased] = await q.leaseTasks({ lease: 60, maxTasks: 1 });
    await q.deleteTask(leased!);
    await expect(q.modifyTaskLease(leased!, 10)).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
  });

  it('deletes available and leased tasks, also after the lease expired', async () => {
    const q = await open();
    await q.add([{ name: 'avail' }, { name: 'leased' }, { name: 'expired' }]);
    await q.leaseTasks({ lease: 60, maxTasks: 2 });
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second' where name = 'leased'`);
    expect(await q.deleteTask(['avail', 'leased', 'expired', 'unknown'])).toEqual([true, true, true, false]);
    expect(await q.deleteTask('avail')).toBe(false);
    expect(await q.listTasks()).toEqual([]);
    await expect(q.getTask('avail')).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    await expect(q.getTask('unknown')).rejects.toMatchObject({ code: 'UNKNOWN_TASK' });
  });

  it('holds a deleted name until the cleanup job drops its tombstone', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]), { tombstoneDays: 7 });
    const q = t.service.getQueue('q');
    await q.add({ name: 'reused', payload: 'v1' });
    expect(await q.deleteTask('reused')).toBe(true);
    await expect(q.add({ name: 'reused' })).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    // Six days later the name is still held...
    await t.sql(`update ${t.schema}.task_tombstones set deleted_at = now() - interval '6 days'`);
    await t.service.runCleanup();
    await expect(q.add({ name: 'reused' })).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    // ...after seven it is released.
    await t.sql(`update ${t.schema}.task_tombstones set deleted_at = now() - interval '7 days 1 minute'`);
    await t.service.runCleanup();
    const again = await q.add({ name: 'reused', payload: 'v2' });
    expect(again.name).toBe('reused');
  });

  it('deletes a task whose name a writer bypassing the add trigger left a tombstone for', async () => {
    const q = await open();
    await q.add({ name: 'odd' });
    await t.sql(
      `insert into ${t.schema}.task_tombstones (queue_id, name, reason, deleted_at)
       select queue_id, name, 'deleted', now() - interval '1 day' from ${t.schema}.tasks where name = 'odd'`,
    );
    expect(await q.deleteTask('odd')).toBe(true);
    expect(await q.listTasks()).toEqual([]);
    await expect(q.add({ name: 'odd' })).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
  });

  it('rejects a second live task of the same name', async () => {
    const q = await open();
    await q.add({ name: 'one' });
    await expect(q.add({ name: 'one' })).rejects.toMatchObject({
      code: 'TASK_ALREADY_EXISTS',
      details: { task: 'one' },
    });
    // All or nothing: a batch with one clash stores nothing.
    await expect(q.add([{ name: 'two' }, { name: 'one' }])).rejects.toMatchObject({ code: 'TASK_ALREADY_EXISTS' });
    expect((await q.listTasks()).map((x) => x.name)).toEqual(['one']);
  });

  it('keeps the counters exact through adds, lease drops and deletes', async () => {
    const q = await open();
    await q.add(
      Array.from({ length: 30 }, (_, i) => ({ name: `c${i}`, payload: 'x'.repeat(i), tag: i % 3 ? 'tg' : null })),
    );
    await q.deleteTask(['c1', 'c2', 'c3']);
    const [counted] = await t.sql<{ tasks: string; bytes: string }>(
      `select sum(task_count)::text as tasks, sum(byte_count)::text as bytes from ${t.schema}.queue_storage`,
    );
    const [actual] = await t.sql<{ tasks: string; bytes: string }>(
      `select count(*)::text as tasks, sum(size_bytes)::text as bytes from ${t.schema}.tasks`,
    );
    expect(counted).toEqual(actual);
    const stats = await q.fetchStatistics();
    expect(stats.totalTasks).toBe(27);
    expect(stats.totalBytes).toBe(Number(actual!.bytes));
  });
});
