import { describe, expect, it } from 'vitest';
import type { PushClaimParams } from '../../src/core/push/dispatcher/push-store.js';
import { PgPushStore } from '../../src/store/push/pg-push-store.js';
import { ENGINES } from '../helpers/engines.js';
import { pushQueue } from '../helpers/push-sink.js';
import { usePushFixture } from './push-fixture.js';

/**
 * A dispatcher's claims are recovered when its push_dispatchers row expires
 * (sql/0012), not only at their deadline: rows are backdated, never waited for.
 */
describe.each(ENGINES)('push claims of a dead dispatcher (%s)', (engine) => {
  const push = usePushFixture();

  it('are taken over at the next heartbeat of a live one; a live dispatcher keeps its claims; the dead one claims and writes nothing', async () => {
    // Dispatch off: the three dispatchers below are this test's store calls.
    const { t, queue } = await push.start(engine, {
      push: { maxConcurrentRequests: 2 },
      open: { open: { dispatch: false } },
    });
    for (const name of ['a', 'b']) await queue.add({ name });
    const store = new PgPushStore(t.store);
    const lease = { leaseMs: 60_000 };
    const [dead, live, other] = [
      await store.registerDispatcher(lease),
      await store.registerDispatcher(lease),
      await store.registerDispatcher(lease),
    ];
    const params = (dispatcherId: string): PushClaimParams => ({
      queueId: queue.id,
      queueName: 'h',
      ratePerSecond: 1_000_000,
      bucketSize: 1_000_000,
      maxConcurrentRequests: 2,
      limit: 10,
      deadlineMs: 600_000,
      marginMs: 30_000,
      dispatcherId,
    });
    const claims = async () =>
      t.sql<{ name: string; claimed_by: string | null; in_flight: boolean }>(
        `select name, claimed_by::text, (dispatched_at is not null and eta > now()) as in_flight from ${t.schema}.tasks order by name`,
      );

    const first = await store.claim(params(dead));
    expect(first.tasks.map((task) => task.name).sort()).toEqual(['a', 'b']);
    await queue.add({ name: 'c' });
    // The queue is full: another dispatcher gets nothing, and its heartbeat takes nothing from a live one.
    expect((await store.claim(params(live))).tasks).toEqual([]);
    expect(await store.heartbeat({ dispatcherId: live, ...lease })).toEqual({ alive: true, recoveredQueueIds: [] });
    expect((await claims()).filter((row) => row.in_flight).map((row) => [row.name, row.claimed_by])).toEqual([
      ['a', dead],
      ['b', dead],
    ]);

    // Its heartbeat stopped (killed, paused or cut off): as if its lease had passed.
    await t.sql(`update ${t.schema}.push_dispatchers set expires_at = now() - interval '1 second' where id = $1`, [
      dead,
    ]);
    expect(await store.heartbeat({ dispatcherId: live, ...lease })).toEqual({
      alive: true,
      recoveredQueueIds: [queue.id],
    });
    expect(await claims()).toEqual([
      { name: 'a', claimed_by: null, in_flight: false },
      { name: 'b', claimed_by: null, in_flight: false },
      { name: 'c', claimed_by: null, in_flight: false },
    ]);

    // The dead one, should it still run: its outcomes write nothing, it claims nothing, and its heartbeat does not bring it back.
    const [a, b] = first.tasks.sort((x, y) => x.name.localeCompare(y.name));
    const ref = (task: typeof a) => ({
      queueId: queue.id,
      queueName: 'h',
      name: task!.name,
      claimUsec: task!.claimUsec,
    });
    expect(await store.delivered({ ...ref(a), tombstone: true })).toBe(false);
    expect(await store.failed({ ...ref(b), status: 500, error: 'HTTP 500', executed: true, delayMs: 0 })).toBe(false);
    expect((await store.claim(params(dead))).tasks).toEqual([]);
    expect(await store.heartbeat({ dispatcherId: dead, ...lease })).toEqual({ alive: false, recoveredQueueIds: [] });

    // The live one claims them (due since their lost claim was made, before c was added), as attempts after the lost one.
    const second = await store.claim(params(live));
    expect(second.tasks.map((task) => [task.name, task.attempt]).sort()).toEqual([
      ['a', 2],
      ['b', 2],
    ]);
    expect(await store.heartbeat({ dispatcherId: other, ...lease })).toEqual({ alive: true, recoveredQueueIds: [] });
    expect((await claims()).filter((row) => row.in_flight).map((row) => row.claimed_by)).toEqual([live, live]);

    // A clean shutdown releases its claims at once and removes its row.
    expect(await store.retireDispatcher(live)).toEqual([queue.id]);
    expect((await claims()).every((row) => !row.in_flight && row.claimed_by === null)).toBe(true);
    // Its two slots are free at once: c and one of them (c is due since before their claim).
    const third = (await store.claim(params(other))).tasks.map((task) => task.name);
    expect(third).toHaveLength(2);
    expect(third).toContain('c');
    // The dead row goes a minute after it expired; the retired one is gone already.
    await t.sql(`update ${t.schema}.push_dispatchers set expires_at = now() - interval '2 minutes' where id = $1`, [
      dead,
    ]);
    await store.heartbeat({ dispatcherId: other, ...lease });
    expect(await t.sql<{ id: string }>(`select id::text from ${t.schema}.push_dispatchers order by id`)).toEqual([
      { id: other },
    ]);
  });

  it('a claim made without the claiming process (by a process older than push_dispatchers) loses any earlier mark and is left to its deadline', async () => {
    const { t, queue } = await push.start(engine, { open: { open: { dispatch: false } } });
    await queue.add({ name: 'x' });
    const store = new PgPushStore(t.store);
    const dead = await store.registerDispatcher({ leaseMs: 60_000 });
    await store.claim({
      queueId: queue.id,
      queueName: 'h',
      ratePerSecond: 1000,
      bucketSize: 1000,
      maxConcurrentRequests: null,
      limit: 1,
      deadlineMs: 1,
      marginMs: 0,
      dispatcherId: dead,
    });
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);
    const old = await t.sql<{ name: string | null }>(
      `select name from ${t.schema}.claim_push_tasks($1, 1000, 1000, null, 1, 600000, 30000)`,
      [queue.id],
    );
    expect(old.map((row) => row.name)).toEqual(['x', null]);
    await t.sql(`update ${t.schema}.push_dispatchers set expires_at = now() - interval '1 second'`);
    const other = await store.registerDispatcher({ leaseMs: 60_000 });
    expect((await store.heartbeat({ dispatcherId: other, leaseMs: 60_000 })).recoveredQueueIds).toEqual([]);
    expect(
      await t.sql(`select claimed_by, dispatched_at is not null and eta > now() as in_flight from ${t.schema}.tasks`),
    ).toEqual([{ claimed_by: null, in_flight: true }]);
  });
});

describe.each(ENGINES)('a dispatcher whose heartbeat lapses (%s)', (engine) => {
  const push = usePushFixture();

  it('cuts its requests, and another process delivers its tasks and those waiting for its slots long before the deadline', async () => {
    const blockers = new Set(['b1', 'b2']);
    const { t, sink, config } = await push.start(engine, {
      // A blocker's first attempt is held until the end of the test; everything else is answered at once.
      answer: (request) =>
        blockers.has(request.body.toString()) && request.headers['x-appengine-taskretrycount'] === '0'
          ? new Promise(() => {})
          : { status: 200 },
      queues: (url) => [pushQueue('h', url, { maxConcurrentRequests: 2 })],
    });
    const queue = t.service.getQueue('h');
    await queue.add([...blockers].map((name) => ({ name, payload: name })));
    await sink.waitFor(2);
    const [first] = await t.sql<{ claimed_by: string }>(`select distinct claimed_by::text from ${t.schema}.tasks`);
    // Another process, and tasks waiting for the two slots the first one holds.
    await t.openAnother(config);
    await queue.add(['w1', 'w2', 'w3'].map((name) => ({ name, payload: name })));
    // The first process stops its heartbeat (paused, or cut off from the database) past its lease:
    await t.sql(`update ${t.schema}.push_dispatchers set expires_at = now() - interval '1 second' where id = $1`, [
      first!.claimed_by,
    ]);
    // Each blocker again and each waiting task, with the claims' deadline ten and a half minutes away.
    await sink.waitFor(7, 30_000);
    await expect
      .poll(async () => (await t.sql(`select name from ${t.schema}.tasks`)).length, { timeout: 30_000 })
      .toBe(0);
    const bodies = sink.requests.map((r) => r.body.toString());
    expect(bodies.slice(0, 2).sort()).toEqual(['b1', 'b2']);
    expect(bodies.slice(2).sort()).toEqual(['b1', 'b2', 'w1', 'w2', 'w3']);
    // The first process ended its term, cutting its two held requests, and registered again under a new row.
    await expect.poll(() => sink.cut, { timeout: 30_000 }).toBe(2);
    await expect
      .poll(
        async () =>
          (
            await t.sql<{ id: string }>(`select id::text from ${t.schema}.push_dispatchers where expires_at > now()`)
          ).map((row) => row.id),
        {
          timeout: 30_000,
        },
      )
      .toHaveLength(2);
  });

  it('a clean shutdown cuts a request past its grace and releases its claim at once', async () => {
    const { t, sink, queue } = await push.start(engine, { answer: () => new Promise(() => {}) });
    await queue.add({ name: 'slow' });
    await sink.waitFor(1);
    await t.service.stopDispatch(50);
    expect(
      await t.sql(
        `select name, dispatched_at is null as idle, claimed_by, eta <= now() as due, retry_count from ${t.schema}.tasks`,
      ),
    ).toEqual([{ name: 'slow', idle: true, claimed_by: null, due: true, retry_count: 1 }]);
    expect(await t.sql(`select id from ${t.schema}.push_dispatchers`)).toEqual([]);
    await expect.poll(() => sink.cut).toBe(1);
  });
});
