import { afterEach, describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { queueOver, recordingStore } from '../helpers/recording-store.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { operatorOf } from '../helpers/operator-of.js';

/** Resolves after `ms`. */
const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(ENGINES)('long-poll leases in the core on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  const open = async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    return t.service.getQueue('q');
  };

  it('waits for a task added during the wait and returns it well before waitMs', async () => {
    const q = await open();
    const started = performance.now();
    const leasing = q.leaseTasks({ lease: 30, maxTasks: 5, waitMs: 20_000 });
    await later(100);
    await q.add({ name: 'late', payload: 'x' });
    const tasks = await leasing;
    expect(tasks.map((task) => [task.name, task.retryCount])).toEqual([['late', 1]]);
    expect(performance.now() - started).toBeLessThan(15_000); // well before waitMs, with room for a busy machine
  });

  it('waits for a task added by another service on the same database (another process)', async () => {
    const q = await open();
    const other = await t.openAnother();
    const leasing = q.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 20_000 });
    await later(100);
    await other.getQueue('q').add({ name: 'elsewhere' });
    expect((await leasing).map((task) => task.name)).toEqual(['elsewhere']);
  });

  it('resolves to [] once waitMs has passed with nothing to lease', async () => {
    const q = await open();
    const started = performance.now();
    expect(await q.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 300 })).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('returns at once when tasks are there, and takes an expired lease within about a second', async () => {
    const q = await open();
    await q.add({ name: 'a' });
    expect((await q.leaseTasks({ lease: 600, maxTasks: 1, waitMs: 20_000 })).map((task) => task.name)).toEqual(['a']);
    const leasing = q.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 20_000 });
    await later(100);
    // The lease runs out (backdated in SQL): no notification announces it, the wait's next attempt sees it.
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);
    expect((await leasing).map((task) => [task.name, task.retryCount])).toEqual([['a', 2]]);
  });

  it('ends the wait when the signal aborts, resolving to []', async () => {
    const q = await open();
    const controller = new AbortController();
    const started = performance.now();
    const leasing = q.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 20_000, signal: controller.signal });
    await later(100);
    controller.abort();
    expect(await leasing).toEqual([]);
    expect(performance.now() - started).toBeLessThan(15_000); // well before waitMs, with room for a busy machine
  });

  it('takes a signal given as a function only when the lease has to wait, and once', async () => {
    const q = await open();
    await q.add({ name: 'ready' });
    const controller = new AbortController();
    let taken = 0;
    const signal = () => {
      taken++;
      return controller.signal;
    };
    expect((await q.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 20_000, signal })).map((task) => task.name)).toEqual([
      'ready',
    ]);
    expect(taken).toBe(0);
    const started = performance.now();
    const leasing = q.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 20_000, signal });
    await later(1500);
    controller.abort();
    expect(await leasing).toEqual([]);
    expect(taken).toBe(1);
    expect(performance.now() - started).toBeLessThan(15_000); // well before waitMs, with room for a busy machine
  });

  it('waits on a paused queue: QUEUE_PAUSED at the end if still paused, the tasks if resumed meanwhile', async () => {
    const q = await open();
    await q.add({ name: 'held' });
    await operatorOf(q).pause();
    const error = await q.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 300 }).catch((e: unknown) => e);
    expect(isQueueError(error, 'QUEUE_PAUSED')).toBe(true);
    const leasing = q.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 20_000 });
    await later(100);
    await operatorOf(q).resume();
    expect((await leasing).map((task) => task.name)).toEqual(['held']);
  });

  it('validates waitMs (0 to 60 000 ms)', async () => {
    const q = await open();
    for (const waitMs of [-1, 1.5, 60_001, Number.NaN]) {
      const error = await q.leaseTasks({ lease: 30, maxTasks: 1, waitMs }).catch((e: unknown) => e);
      expect(isQueueError(error, 'INVALID_REQUEST'), String(waitMs)).toBe(true);
    }
    expect(await q.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 0 })).toEqual([]);
  });

  it('between attempts waits through the store seam (waitForTasks), holding no connection', async () => {
    const q = await open();
    // The core sees only the TaskStore interface: record which of its methods a waiting lease uses.
    const { store: recording, calls } = recordingStore(t.store);
    const watched = queueOver(recording, q);
    expect(await watched.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 1500 })).toEqual([]);
    expect(new Set(calls)).toEqual(new Set(['leaseTasks', 'waitForTasks']));
    // About one attempt per second: the fallback for what no notification announces.
    expect(calls.filter((name) => name === 'leaseTasks').length).toBeLessThanOrEqual(4);
  });

  it('on a rate-limited queue tries again only when a task is there, so idle waits use up no lease calls', async () => {
    t = await openTestService(
      engine,
      serviceConfig([pullQueue('r', { leaseRate: { calls: 100, windowSeconds: 3600 } })]),
    );
    const q = t.service.getQueue('r');
    const callsCounted = async () => {
      const [row] = await t.sql<{ calls: number }>(
        `select coalesce(sum(calls), 0)::int4 as calls from ${t.schema}.lease_rate_windows w
           join ${t.schema}.queues q on q.id = w.queue_id where q.name = 'r'`,
      );
      return Number(row!.calls);
    };
    // 2.5 s of waiting: two or three checks after the first attempt, none of them a lease call.
    expect(await q.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 2500 })).toEqual([]);
    expect(await callsCounted()).toBe(1);
    // A task that arrives during the wait is still taken, with one more call.
    const leasing = q.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 20_000 });
    await later(1200);
    await q.add({ name: 'arrived' });
    expect((await leasing).map((task) => task.name)).toEqual(['arrived']);
    expect(await callsCounted()).toBe(3);
    // So is a task whose lease runs out during the wait (no notification announces it).
    await q.modifyTaskLease((await q.listTasks())[0]!, 1);
    expect((await q.leaseTasks({ lease: 30, maxTasks: 1, waitMs: 20_000 })).map((task) => task.name)).toEqual([
      'arrived',
    ]);
  });
});
