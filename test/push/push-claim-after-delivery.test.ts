import { describe, expect, it } from 'vitest';
import type { PushClaimParams } from '../../src/core/push/dispatcher/push-store.js';
import { PgPushStore } from '../../src/store/push/pg-push-store.js';
import { ENGINES } from '../helpers/engines.js';
import { usePushFixture } from './push-fixture.js';

describe.each(ENGINES)('a claim that writes successes first (%s)', (engine) => {
  const push = usePushFixture();

  it('deletes each success only while its claim holds, tombstones on request, and counts their slots free in the same claim', async () => {
    // Dispatch off: this test is the only claimer; at most two requests in flight.
    const { t, queue } = await push.start(engine, {
      push: { maxConcurrentRequests: 2 },
      open: { open: { dispatch: false } },
    });
    // One add each: distinct ETAs, so claims take them in this order.
    for (const name of ['a', 'b', 'c', 'd']) await queue.add({ name });
    const store = new PgPushStore(t.store);
    const dispatcherId = await store.registerDispatcher({ leaseMs: 60_000 });
    const params: PushClaimParams = {
      queueId: queue.id,
      queueName: 'h',
      ratePerSecond: 1_000_000,
      bucketSize: 1_000_000,
      maxConcurrentRequests: 2,
      limit: 10,
      deadlineMs: 60_000,
      marginMs: 1_000,
      dispatcherId,
    };
    const first = await store.claim(params);
    expect(first.tasks.map((task) => task.name).sort()).toEqual(['a', 'b']);
    expect(first.delivered).toEqual([]);
    // Both slots taken: nothing more until a success frees one.
    expect((await store.claim(params)).tasks).toEqual([]);

    const [a, b] = first.tasks.sort((x, y) => x.name.localeCompare(y.name));
    const ref = (task: typeof a, claimUsec = task!.claimUsec, tombstone = true) => ({
      queueId: queue.id,
      queueName: 'h',
      name: task!.name,
      claimUsec,
      tombstone,
    });
    // a's success under its claim, b's under a stale claim (claimed again elsewhere, say): a goes and its slot is refilled; b stays.
    const second = await store.claim({ ...params, delivered: [ref(a), ref(b, b!.claimUsec - 1)] });
    expect(second.delivered).toEqual([true, false]);
    expect(second.tasks.map((task) => task.name)).toEqual(['c']);
    const left = await t.sql<{ name: string }>(`select name from ${t.schema}.tasks order by name`);
    expect(left.map((row) => row.name)).toEqual(['b', 'c', 'd']);
    expect(await t.sql(`select name, reason from ${t.schema}.task_tombstones`)).toEqual([
      { name: 'a', reason: 'deleted' },
    ]);

    // No tombstone when the name needs none; both slots freed and refilled by the same call.
    const c = second.tasks[0]!;
    const third = await store.claim({
      ...params,
      delivered: [ref(b, b!.claimUsec, false), ref(c, c.claimUsec, false)],
    });
    expect(third.delivered).toEqual([true, true]);
    expect(third.tasks.map((task) => task.name)).toEqual(['d']);
    expect(await t.sql(`select name from ${t.schema}.task_tombstones order by name`)).toEqual([{ name: 'a' }]);

    // Paused: the successes are still written, and nothing is claimed.
    await t.operate('h').pause();
    const d = third.tasks[0]!;
    const paused = await store.claim({ ...params, delivered: [ref(d)] });
    expect(paused).toMatchObject({ tasks: [], delivered: [true] });
    expect(await t.sql(`select name from ${t.schema}.tasks`)).toEqual([]);
  });
});
