import { afterEach, describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { queueOver, recordingStore } from '../helpers/recording-store.js';
import { ENGINES, openTestService, testPgUrl, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { operatorOf } from '../helpers/operator-of.js';

describe.each(ENGINES)('leasing on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  const open = async (queues = [pullQueue('q')]) => {
    t = await openTestService(engine, serviceConfig(queues));
    return t.service.getQueue(queues[0]!.name);
  };

  /** Makes every task of the schema leasable again, as if its lease had expired long ago. */
  const expireAll = () => t.sql(`update ${t.schema}.tasks set eta = eta - interval '8 days'`);

  it('returns the oldest ETA first and skips tasks not yet due', async () => {
    const q = await open();
    const now = Date.now();
    await q.add({ name: 'later', payload: 'l', eta: new Date(now - 1000) });
    await q.add({ name: 'earlier', payload: 'e', eta: new Date(now - 5000) });
    await q.add({ name: 'future', payload: 'f', countdownSeconds: 3600 });
    await q.add({ name: 'middle', payload: 'm', eta: new Date(now - 3000) });
    const leased = await q.leaseTasks({ lease: 30, maxTasks: 10 });
    expect(leased.map((x) => x.name)).toEqual(['earlier', 'middle', 'later']);
  });

  it('sets the lease from the database clock and counts each lease', async () => {
    const q = await open();
    await q.add({ name: 'a', payload: 'x' });
    const [db] = await t.sql<{ now_usec: string }>(
      `select (extract(epoch from now()) * 1000000)::int8::text as now_usec`,
    );
    const [first] = await q.leaseTasks({ lease: 2, unit: 'minutes', maxTasks: 1 });
    expect(first?.retryCount).toBe(1);
    const dbNow = Number(db!.now_usec);
    expect(first!.etaUsec).toBeGreaterThanOrEqual(dbNow + 120_000_000);
    expect(first!.etaUsec).toBeLessThan(dbNow + 130_000_000);
    // An unexpired lease hides the task.
    expect(await q.leaseTasks({ lease: 60, maxTasks: 10 })).toEqual([]);
    await expireAll();
    const [second] = await q.leaseTasks({ lease: 60, maxTasks: 1 });
    expect(second?.name).toBe('a');
    expect(second?.retryCount).toBe(2);
  });

  it('takes at most maxTasks and returns [] when nothing is leasable', async () => {
    const q = await open();
    expect(await q.leaseTasks({ lease: 60, maxTasks: 5 })).toEqual([]);
    await q.add(Array.from({ length: 12 }, (_, i) => ({ name: `t${i}`, payload: String(i) })));
    expect(await q.leaseTasks({ lease: 60, maxTasks: 5 })).toHaveLength(5);
    expect(await q.leaseTasks({ lease: 60, maxTasks: 5 })).toHaveLength(5);
    expect(await q.leaseTasks({ lease: 60, maxTasks: 5 })).toHaveLength(2);
  });

  it('validates maxTasks, lease length and unit', async () => {
    const q = await open();
    const code = async (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: unknown) => (isQueueError(e) ? e.code : 'other'),
      );
    expect(await code(q.leaseTasks({ lease: 60, maxTasks: 0 }))).toBe('INVALID_REQUEST');
    expect(await code(q.leaseTasks({ lease: 60, maxTasks: 1001 }))).toBe('INVALID_REQUEST');
    expect(await code(q.leaseTasks({ lease: 60, maxTasks: 1.5 }))).toBe('INVALID_REQUEST');
    expect(await code(q.leaseTasks({ lease: 604_801, maxTasks: 1 }))).toBe('INVALID_REQUEST');
    expect(await code(q.leaseTasks({ lease: 8, unit: 'days', maxTasks: 1 }))).toBe('INVALID_REQUEST');
    expect(await code(q.leaseTasks({ lease: -1, maxTasks: 1 }))).toBe('INVALID_REQUEST');
    expect(await code(q.leaseTasks({ lease: 1, unit: 'weeks' as never, maxTasks: 1 }))).toBe('INVALID_REQUEST');
    expect(await code(q.leaseTasks({ lease: 604_800, maxTasks: 1000 }))).toBe('ok');
    expect(await code(q.leaseTasks({ lease: 0, maxTasks: 1 }))).toBe('ok');
  });

  it('refuses to lease a push queue', async () => {
    t = await openTestService(engine, serviceConfig([]));
    const push = t.service.getQueue('default');
    await expect(push.leaseTasks({ lease: 60, maxTasks: 1 })).rejects.toMatchObject({ code: 'INVALID_QUEUE_MODE' });
    await expect(push.add({ payload: 'x', method: 'PULL' })).rejects.toMatchObject({ code: 'INVALID_QUEUE_MODE' });
    // A push task, but the queue has nowhere to deliver: the error names both settings.
    await expect(push.add({ payload: 'x' })).rejects.toThrow(/<target-url>.*TASKQUEUE_PUSH_BASE_URL/);
  });

  it('leases by tag, and groups by the oldest task tag', async () => {
    const q = await open();
    const now = Date.now();
    await q.add([
      { name: 'red1', tag: 'red', eta: new Date(now - 9000) },
      { name: 'plain1', eta: new Date(now - 8000) },
      { name: 'blue1', tag: 'blue', eta: new Date(now - 7000) },
      { name: 'red2', tag: 'red', eta: new Date(now - 6000) },
      { name: 'plain2', eta: new Date(now - 5000) },
      { name: 'blue2', tag: 'blue', eta: new Date(now - 4000) },
    ]);
    expect((await q.leaseTasksByTag({ lease: 60, maxTasks: 10, tag: 'blue' })).map((x) => x.name)).toEqual([
      'blue1',
      'blue2',
    ]);
    // Oldest available is red1: only red tasks.
    expect((await q.leaseTasks({ lease: 60, maxTasks: 10, groupByTag: true })).map((x) => x.name)).toEqual([
      'red1',
      'red2',
    ]);
    // Oldest available is now plain1 (untagged): only untagged tasks.
    const untagged = await q.leaseTasks({ lease: 60, maxTasks: 10, groupByTag: true });
    expect(untagged.map((x) => x.name)).toEqual(['plain1', 'plain2']);
    expect(untagged.every((x) => x.tag === null)).toBe(true);
    expect(await q.leaseTasks({ lease: 60, maxTasks: 10, groupByTag: true })).toEqual([]);
  });

  it('groups by the oldest tag in the one lease statement, skipping a locked oldest task', async () => {
    const q = await open();
    const now = Date.now();
    await q.add([
      { name: 'red1', tag: 'red', eta: new Date(now - 9000) },
      { name: 'blue1', tag: 'blue', eta: new Date(now - 8000) },
      { name: 'red2', tag: 'red', eta: new Date(now - 7000) },
      { name: 'blue2', tag: 'blue', eta: new Date(now - 6000) },
      { name: 'plain1', eta: new Date(now - 5000) },
    ]);
    const { store: recording, calls } = recordingStore(t.store);
    const watched = queueOver(recording, q);
    expect((await watched.leaseTasks({ lease: 60, maxTasks: 1, groupByTag: true })).map((x) => x.name)).toEqual([
      'red1',
    ]);
    // One call of the store: the tag is found by the lease statement itself.
    expect(calls).toEqual(['leaseTasks']);
    if (engine === 'postgres') {
      // Another session holds the oldest available task (blue1) locked: the group is the next one's tag (red).
      const { default: pg } = await import('pg');
      const other = new pg.Client({ connectionString: testPgUrl() });
      await other.connect();
      try {
        await other.query('begin');
        await other.query(`select 1 from ${t.schema}.tasks where name = 'blue1' for update`);
        expect((await q.leaseTasks({ lease: 60, maxTasks: 10, groupByTag: true })).map((x) => x.name)).toEqual([
          'red2',
        ]);
        await other.query('rollback');
      } finally {
        await other.end();
      }
      expect((await q.leaseTasks({ lease: 60, maxTasks: 10, groupByTag: true })).map((x) => x.name)).toEqual([
        'blue1',
        'blue2',
      ]);
    } else {
      // PGlite has one session: no other can hold a lock.
      expect((await q.leaseTasks({ lease: 60, maxTasks: 10, groupByTag: true })).map((x) => x.name)).toEqual([
        'blue1',
        'blue2',
      ]);
      expect((await q.leaseTasks({ lease: 60, maxTasks: 10, groupByTag: true })).map((x) => x.name)).toEqual(['red2']);
    }
    expect((await q.leaseTasks({ lease: 60, maxTasks: 10, groupByTag: true })).map((x) => x.name)).toEqual(['plain1']);
    // Grouped leases of a paused queue fail as any lease does.
    await q.add({ name: 'later', tag: 'red' });
    await operatorOf(q).pause();
    const paused = await q.leaseTasks({ lease: 60, maxTasks: 10, groupByTag: true }).catch((e: unknown) => e);
    expect(isQueueError(paused, 'QUEUE_PAUSED')).toBe(true);
  });

  it('groups by the oldest tag when that task is past the retry limit: it is dead-lettered, its tag still leads', async () => {
    const q = await open([pullQueue('limited', { maxLeases: 1 })]);
    const now = Date.now();
    await q.add([
      { name: 'spent', tag: 'red', eta: new Date(now - 9000) },
      { name: 'blue1', tag: 'blue', eta: new Date(now - 8000) },
      { name: 'red1', tag: 'red', eta: new Date(now - 7000) },
    ]);
    expect((await q.leaseTasks({ lease: 60, maxTasks: 1 })).map((x) => x.name)).toEqual(['spent']);
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '10 seconds' where name = 'spent'`);
    expect((await q.leaseTasks({ lease: 60, maxTasks: 10, groupByTag: true })).map((x) => x.name)).toEqual(['red1']);
    expect((await operatorOf(q).listDeadLetters({ limit: 10 })).map((x) => x.name)).toEqual(['spent']);
  });

  it('drops a task leased maxLeases times, tombstoned with the reason', async () => {
    const q = await open([pullQueue('limited', { maxLeases: 2 })]);
    await q.add({ name: 'doomed', payload: 'x' });
    expect((await q.leaseTasks({ lease: 60, maxTasks: 1 }))[0]?.name).toBe('doomed');
    await expireAll();
    const second = await q.leaseTasks({ lease: 60, maxTasks: 1 });
    expect(second.map((x) => [x.name, x.retryCount])).toEqual([['doomed', 2]]);
    await expireAll();
    await q.add({ name: 'fresh', payload: 'y' });
    // The third attempt deletes 'doomed' and returns only what is still allowed.
    const third = await q.leaseTasks({ lease: 60, maxTasks: 5 });
    expect(third.map((x) => x.name)).toEqual(['fresh']);
    const tombstones = await t.sql<{ name: string; reason: string; retry_count: number }>(
      `select name, reason, retry_count from ${t.schema}.task_tombstones`,
    );
    expect(tombstones).toEqual([{ name: 'doomed', reason: 'retry_limit', retry_count: 2 }]);
    await expect(q.getTask('doomed')).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    await expect(q.add({ name: 'doomed' })).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    expect((await q.fetchStatistics()).totalTasks).toBe(1);
  });

  it('leaves tasks that do not fit the payload budget available', async () => {
    const q = await open();
    const kb = 'x'.repeat(1000);
    await q.add(
      Array.from({ length: 5 }, (_, i) => ({ name: `p${i}`, payload: kb, eta: new Date(Date.now() - 10_000 + i) })),
    );
    const leased = await q.leaseTasks({ lease: 60, maxTasks: 5, payloadLimitBytes: 2500 });
    expect(leased.map((x) => x.name)).toEqual(['p0', 'p1']);
    const rest = await t.sql<{ name: string; retry_count: number }>(
      `select name, retry_count from ${t.schema}.tasks where eta <= now() order by name`,
    );
    expect(rest).toEqual([
      { name: 'p2', retry_count: 0 },
      { name: 'p3', retry_count: 0 },
      { name: 'p4', retry_count: 0 },
    ]);
  });

  it('limits lease calls per queue that return tasks', async () => {
    const q = await open([pullQueue('rated', { leaseRate: { calls: 3, windowSeconds: 60 } })]);
    await q.add(Array.from({ length: 20 }, (_, i) => ({ name: `r${i}` })));
    const results = [];
    for (let i = 0; i < 6; i++) results.push((await q.leaseTasks({ lease: 60, maxTasks: 1 })).length);
    expect(results).toEqual([1, 1, 1, 0, 0, 0]);
    // The window is kept in the database: it holds for every process.
    const [row] = await t.sql<{ calls: number }>(`select calls from ${t.schema}.lease_rate_windows`);
    expect(row?.calls).toBe(6);
  });
});
