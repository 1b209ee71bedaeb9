import { afterEach, describe, expect, it } from 'vitest';
import { CapturedEvents } from '../helpers/capture-events.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { operatorOf } from '../helpers/operator-of.js';

describe.each(ENGINES)('TaskEvents counts on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  const expireAll = () => t.sql(`update ${t.schema}.tasks set eta = eta - interval '8 days' where eta > now()`);

  it('counts adds, leases, deletes, lapsed leases and dead letters as they happen', async () => {
    const events = new CapturedEvents();
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 2 }), pullQueue('r')]), { events });
    const q = t.service.getQueue('q');
    await q.add([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    await t.service.getQueue('r').add({ name: 'r1' });
    expect(events.totals()).toEqual({ 'added:q': 3, 'added:r': 1 });

    expect((await q.leaseTasks({ lease: 60, maxTasks: 2 })).map((x) => x.name)).toEqual(['a', 'b']);
    expect(await q.deleteTask(['a', 'nope'])).toEqual([true, false]);
    expect(events.totals()).toMatchObject({ 'leased:q': 2, 'deleted:q': 1 });

    // b's lease lapses: leased again, counted as expired. c is leased for the first time.
    await expireAll();
    expect((await q.leaseTasks({ lease: 60, maxTasks: 10 })).map((x) => [x.name, x.retryCount])).toEqual([
      ['b', 2],
      ['c', 1],
    ]);
    expect(events.totals()).toMatchObject({ 'leased:q': 4, 'expired:q': 1 });

    // Both lapse again: b (leased twice) is dead-lettered, c leased a second time.
    await expireAll();
    expect((await q.leaseTasks({ lease: 60, maxTasks: 10 })).map((x) => x.name)).toEqual(['c']);
    expect(events.totals()).toMatchObject({ 'leased:q': 5, 'expired:q': 3, 'deadLettered:q': 1 });

    // A purge counts as deletes, a redrive as adds; a paused lease counts nothing.
    expect(await operatorOf(q).purge()).toBe(1);
    expect(await operatorOf(q).redrive()).toBe(1);
    await operatorOf(q).pause();
    await expect(q.leaseTasks({ lease: 60, maxTasks: 10 })).rejects.toThrow(/paused/);
    expect(events.totals()).toEqual({
      'added:q': 4,
      'added:r': 1,
      'deleted:q': 2,
      'leased:q': 5,
      'expired:q': 3,
      'deadLettered:q': 1,
    });
  });

  it('counts each task once when concurrent leases share a statement', async () => {
    const events = new CapturedEvents();
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 1 })]), { events });
    const q = t.service.getQueue('q');
    await q.add(Array.from({ length: 40 }, (_, i) => ({ name: `t${i}` })));
    await q.leaseTasks({ lease: 60, maxTasks: 20 });
    await expireAll();
    // 20 tasks die, 20 are leased, whichever of the 8 calls sees them.
    const results = await Promise.all(Array.from({ length: 8 }, () => q.leaseTasks({ lease: 60, maxTasks: 5 })));
    const leased = results.reduce((n, r) => n + r.length, 0);
    const [dead] = await t.sql<{ n: number }>(`select count(*)::int as n from ${t.schema}.task_dead_letters`);
    expect(events.totals()).toEqual({
      'added:q': 40,
      'leased:q': 20 + leased,
      'expired:q': dead!.n,
      'deadLettered:q': dead!.n,
    });
    expect(dead!.n + leased).toBeLessThanOrEqual(40);
    expect(dead!.n).toBeGreaterThan(0);
  });
});
