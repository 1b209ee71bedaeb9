import type { BrowseOptions } from '../../src/core/browse-tasks.js';
import { afterEach, describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { operatorOf } from '../helpers/operator-of.js';

/** Resolves to the QueueError code a promise fails with, or 'resolved'. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    if (isQueueError(error)) return error.code;
    throw error;
  }
}

describe.each(ENGINES)('pause, resume, purge and release on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  const expireAll = () => t.sql(`update ${t.schema}.tasks set eta = eta - interval '8 days'`);

  it('a paused queue takes adds and deletes, leases nothing, and every service on the database sees it at once', async () => {
    const config = serviceConfig([pullQueue('q'), pullQueue('other')]);
    t = await openTestService(engine, config);
    const other = await t.openAnother();
    const here = t.service.getQueue('q');
    const there = other.getQueue('q');
    await here.add([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);

    expect(await there.isPaused()).toBe(false);
    await operatorOf(here).pause();
    expect(await here.isPaused()).toBe(true);
    expect(await there.isPaused()).toBe(true);

    expect(await codeOf(here.leaseTasks({ lease: 60, maxTasks: 10 }))).toBe('QUEUE_PAUSED');
    expect(await codeOf(there.leaseTasks({ lease: 60, maxTasks: 10 }))).toBe('QUEUE_PAUSED');
    expect(await codeOf(there.leaseTasks({ lease: 60, maxTasks: 10, tag: 'x' }))).toBe('QUEUE_PAUSED');
    // Adds and deletes go on; nothing was leased.
    await there.add({ name: 'd' });
    expect(await here.deleteTask('a')).toBe(true);
    const rows = await t.sql<{ name: string; retry_count: number }>(
      `select name, retry_count from ${t.schema}.tasks order by name`,
    );
    expect(rows).toEqual(['b', 'c', 'd'].map((name) => ({ name, retry_count: 0 })));
    // Other queues are not affected.
    await other.getQueue('other').add({ name: 'x' });
    expect((await t.service.getQueue('other').leaseTasks({ lease: 60, maxTasks: 1 })).map((x) => x.name)).toEqual([
      'x',
    ]);

    // Pausing twice keeps the time the pause began.
    const [before] = await t.sql<{ paused_at: Date }>(`select paused_at from ${t.schema}.queues where name = 'q'`);
    await operatorOf(there).pause();
    const [after] = await t.sql<{ paused_at: Date }>(`select paused_at from ${t.schema}.queues where name = 'q'`);
    expect(after!.paused_at).toEqual(before!.paused_at);

    await operatorOf(there).resume();
    expect(await here.isPaused()).toBe(false);
    expect((await here.leaseTasks({ lease: 60, maxTasks: 10 })).map((x) => x.name)).toEqual(['b', 'c', 'd']);
    expect(await t.sql(`select paused, paused_at from ${t.schema}.queues where name = 'q'`)).toEqual([
      { paused: false, paused_at: null },
    ]);
  });

  it('a pause survives a restart (the configuration sync leaves it alone)', async () => {
    const config = serviceConfig([pullQueue('q')]);
    t = await openTestService(engine, config);
    await operatorOf(t.service.getQueue('q')).pause();
    const restarted = await t.openAnother();
    expect(await restarted.getQueue('q').isPaused()).toBe(true);
  });

  it('a lease of a paused queue counts no lease-rate call and drops nothing at the retry limit', async () => {
    t = await openTestService(
      engine,
      serviceConfig([pullQueue('q', { maxLeases: 1, leaseRate: { calls: 1, windowSeconds: 3600 } })]),
    );
    const q = t.service.getQueue('q');
    await q.add({ name: 'a' });
    await operatorOf(q).pause();
    expect(await codeOf(q.leaseTasks({ lease: 60, maxTasks: 1 }))).toBe('QUEUE_PAUSED');
    expect(await t.sql(`select * from ${t.schema}.lease_rate_windows`)).toEqual([]);
    await operatorOf(q).resume();
    expect((await q.leaseTasks({ lease: 60, maxTasks: 1 })).map((x) => x.name)).toEqual(['a']);
    await expireAll();
    // The one call of the window is used: the next returns nothing, and the exhausted task stays.
    expect(await q.leaseTasks({ lease: 60, maxTasks: 1 })).toEqual([]);
    await operatorOf(q).pause();
    await t.sql(`delete from ${t.schema}.lease_rate_windows`);
    expect(await codeOf(q.leaseTasks({ lease: 60, maxTasks: 1 }))).toBe('QUEUE_PAUSED');
    expect(await t.sql(`select name from ${t.schema}.tasks`)).toEqual([{ name: 'a' }]);
    expect(await t.sql(`select name from ${t.schema}.task_dead_letters`)).toEqual([]);
  });

  it('purge deletes every task in batches, tombstones the names and keeps the storage counters right', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q'), pullQueue('kept')]));
    const q = t.service.getQueue('q');
    const total = 1234; // two batches of 1000 and a short one
    for (let i = 0; i < total; i += 100) {
      await q.add(
        Array.from({ length: Math.min(100, total - i) }, (_, j) => ({
          name: `t-${i + j}`,
          payload: 'x'.repeat(10),
          tag: j % 2 ? 'odd' : null,
        })),
      );
    }
    await q.leaseTasks({ lease: 600, maxTasks: 50 });
    await q.add({ name: 'later', countdownSeconds: 3600 });
    await t.service.getQueue('kept').add({ name: 'k', payload: 'keep me' });

    expect(await operatorOf(q).purge()).toBe(total + 1);
    expect(await operatorOf(q).purge()).toBe(0);
    const stats = await q.fetchStatistics();
    expect([stats.totalTasks, stats.totalBytes, stats.oldestEtaUsec]).toEqual([0, 0, null]);
    const [tombstones] = await t.sql<{ n: string; reasons: string[] }>(
      `select count(*)::text as n, array_agg(distinct reason) as reasons from ${t.schema}.task_tombstones`,
    );
    expect(tombstones).toEqual({ n: String(total + 1), reasons: ['purged'] });
    expect(await codeOf(q.add({ name: 't-7' }))).toBe('TOMBSTONED_TASK');
    // The other queue keeps its task and its bytes.
    const kept = await t.service.getQueue('kept').fetchStatistics();
    expect([kept.totalTasks, kept.totalBytes]).toEqual([1, 'keep me'.length + 'k'.length]);
    const [counters] = await t.sql<{ n: string; bytes: string }>(
      `select sum(task_count)::text as n, sum(byte_count)::text as bytes from ${t.schema}.queue_storage`,
    );
    expect(counters).toEqual({ n: '1', bytes: String('keep me'.length + 'k'.length) });
  });

  it('releaseLease ends a lease whoever holds it and leaves other tasks as they are', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    await q.add([{ name: 'held' }, { name: 'free' }, { name: 'later', countdownSeconds: 3600 }]);
    const [held] = await q.leaseTasks({ lease: 3600, maxTasks: 1 });
    expect(held?.name).toBe('held');

    const { task: released, released: wasLeased } = await operatorOf(q).releaseLease('held');
    expect(wasLeased).toBe(true);
    expect(released.retryCount).toBe(1);
    expect(released.etaUsec).toBeLessThan(held!.etaUsec);
    // The old holder's token no longer works; the task is leasable at once (available since now, after 'free').
    expect(await codeOf(q.modifyTaskLease(held!, 60))).toBe('TASK_LEASE_EXPIRED');
    expect((await q.leaseTasks({ lease: 60, maxTasks: 10 })).map((x) => [x.name, x.retryCount])).toEqual([
      ['free', 1],
      ['held', 2],
    ]);

    // A delayed task that was never leased is not made available.
    const { task: later, released: laterReleased } = await operatorOf(q).releaseLease('later');
    expect(laterReleased).toBe(false);
    expect(later.etaUsec).toBe((await q.getTask('later')).etaUsec);
    expect(await q.leaseTasks({ lease: 60, maxTasks: 10 })).toEqual([]);

    expect(await codeOf(operatorOf(q).releaseLease('nope'))).toBe('UNKNOWN_TASK');
    await q.deleteTask('free');
    expect(await codeOf(operatorOf(q).releaseLease('free'))).toBe('TOMBSTONED_TASK');
  });

  it('browseTasks filters by state and tag, a page at a time', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    const now = Date.now();
    await q.add([
      { name: 'a1', tag: 'a', eta: new Date(now - 4000) },
      { name: 'n1', eta: new Date(now - 3000) },
      { name: 'a2', tag: 'a', eta: new Date(now - 2000) },
      { name: 'b1', tag: 'b', eta: new Date(now - 1000) },
      { name: 'd1', tag: 'a', countdownSeconds: 3600 },
    ]);
    await q.leaseTasks({ lease: 600, maxTasks: 1, tag: 'b' });
    const names = async (options: BrowseOptions) => (await operatorOf(q).browseTasks(options)).map((x) => x.name);

    expect(await names({ state: 'available' })).toEqual(['a1', 'n1', 'a2']);
    expect(await names({ state: 'leased' })).toEqual(['b1']);
    expect(await names({ state: 'delayed' })).toEqual(['d1']);
    expect(await names({ tag: 'a' })).toEqual(['a1', 'a2', 'd1']);
    expect(await names({ tag: null })).toEqual(['n1']);
    expect(await names({ state: 'available', tag: 'a' })).toEqual(['a1', 'a2']);
    const page = await operatorOf(q).browseTasks({ state: 'available', limit: 2, withoutPayload: true });
    expect(page.map((x) => x.name)).toEqual(['a1', 'n1']);
    expect(await names({ state: 'available', limit: 2, after: page[1]! })).toEqual(['a2']);
    expect(await codeOf(operatorOf(q).browseTasks({ state: 'gone' as 'leased' }))).toBe('INVALID_REQUEST');
    expect(await codeOf(operatorOf(q).browseTasks({ limit: 0 }))).toBe('INVALID_REQUEST');
  });
});
