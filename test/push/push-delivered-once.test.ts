import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ClaimedPushTask, DeliveredPush, PushClaimParams } from '../../src/core/push/dispatcher/push-store.js';
import { PgPushStore } from '../../src/store/push/pg-push-store.js';
import { deliveredStatement } from '../../src/store/push/push-delivered.js';
import { sqlApiFunctions } from '../../src/store/sql-api/sql-api-functions.js';
import { compiler } from '../../src/store/sql-api/sql-api-text.js';
import { pushQueue } from '../helpers/push-sink.js';
import { ENGINES } from '../helpers/engines.js';
import { usePushFixture } from './push-fixture.js';

/**
 * A success is written by the next claim while the dispatch loop runs
 * (claim_push_tasks_after_delivery) and by `delivered` once it stopped
 * (push_delivered): one statement, generated into the function, so both
 * leave the same rows.
 */
describe.each(ENGINES)('a delivered push task, written by the claim or alone (%s)', (engine) => {
  const push = usePushFixture();

  it('leaves the same rows either way: the task gone only under its claim, the tombstone with its reason and lease count, the counters', async () => {
    const { t } = await push.start(engine, {
      queues: (url) => [pushQueue('alone', url), pushQueue('claimed', url)],
      open: { open: { dispatch: false } },
    });
    const store = new PgPushStore(t.store);
    const dispatcherId = await store.registerDispatcher({ leaseMs: 60_000 });
    const names = ['held', 'by-form', 'stale', 'kept'];
    const setUp = async (queueName: string) => {
      const queue = t.service.getQueue(queueName);
      for (const name of names) await queue.add({ name, payload: Buffer.from(`payload of ${name}`) });
      const params: PushClaimParams = {
        queueId: queue.id,
        queueName,
        ratePerSecond: 1_000_000,
        bucketSize: 1_000_000,
        maxConcurrentRequests: null,
        limit: 10,
        deadlineMs: 60_000,
        marginMs: 1_000,
        dispatcherId,
      };
      const claimed = (await store.claim(params)).tasks;
      const task = (name: string) => claimed.find((c) => c.name === name)!;
      const success = (c: ClaimedPushTask, claimUsec: number, tombstone: boolean): DeliveredPush => ({
        queueId: queue.id,
        queueName,
        name: c.name,
        claimUsec,
        tombstone,
      });
      // 'stale': delivered under a claim that no longer holds; 'kept' not delivered at all.
      const successes = [
        success(task('held'), task('held').claimUsec, true),
        success(task('by-form'), task('by-form').claimUsec, false),
        success(task('stale'), task('stale').claimUsec - 1, true),
      ];
      return { queue, params, successes };
    };

    const alone = await setUp('alone');
    const byStatement = await Promise.all(alone.successes.map((s) => store.delivered(s)));
    const claimed = await setUp('claimed');
    const byClaim = await store.claim({ ...claimed.params, delivered: claimed.successes });
    expect(byStatement).toEqual([true, true, false]);
    expect(byClaim.delivered).toEqual(byStatement);

    const rows = async (queueId: number) => ({
      tasks: await t.sql(`select name, retry_count from ${t.schema}.tasks where queue_id = $1 order by name`, [
        queueId,
      ]),
      tombstones: await t.sql(
        `select name, reason, retry_count from ${t.schema}.task_tombstones where queue_id = $1 order by name`,
        [queueId],
      ),
      // The storage counters (sql/0004) still add up to the tasks left.
      counters: await t.sql(
        `select (select sum(task_count)::int from ${t.schema}.queue_storage where queue_id = $1) as tasks,
                (select sum(byte_count)::int from ${t.schema}.queue_storage where queue_id = $1)
                  = (select sum(size_bytes)::int from ${t.schema}.tasks where queue_id = $1) as bytes_add_up`,
        [queueId],
      ),
    });
    const left = await rows(alone.queue.id);
    expect(left).toEqual({
      tasks: [
        { name: 'kept', retry_count: 1 },
        { name: 'stale', retry_count: 1 },
      ],
      tombstones: [{ name: 'held', reason: 'deleted', retry_count: 1 }],
      counters: [{ tasks: 2, bytes_add_up: true }],
    });
    expect(await rows(claimed.queue.id)).toEqual(left);
  });

  it('the signature without the claiming process deletes the same way and claims under no process', async () => {
    const { t, queue } = await push.start(engine, { open: { open: { dispatch: false } } });
    const store = new PgPushStore(t.store);
    const dispatcherId = await store.registerDispatcher({ leaseMs: 60_000 });
    for (const name of ['a', 'b']) await queue.add({ name });
    const claim = await store.claim({
      queueId: queue.id,
      queueName: 'h',
      ratePerSecond: 1_000_000,
      bucketSize: 1_000_000,
      maxConcurrentRequests: null,
      limit: 1,
      deadlineMs: 60_000,
      marginMs: 1_000,
      dispatcherId,
    });
    const a = claim.tasks[0]!;
    expect(a.name).toBe('a');
    const result = await t.sql<{ name: string; delivered: boolean }>(
      `select name, delivered from ${t.schema}.claim_push_tasks_after_delivery($1, 1000000, 1000000, null, 1, 60000, 1000,
         array['a'], array[$2::int8], array[true]) where name is not null`,
      [queue.id, a.claimUsec],
    );
    expect(result).toEqual([
      { name: 'a', delivered: true },
      { name: 'b', delivered: false },
    ]);
    expect(await t.sql(`select name, claimed_by from ${t.schema}.tasks`)).toEqual([{ name: 'b', claimed_by: null }]);
    expect(await t.sql(`select name, reason from ${t.schema}.task_tombstones`)).toEqual([
      { name: 'a', reason: 'deleted' },
    ]);
  });
});

describe('claim_push_tasks_after_delivery', () => {
  it("holds the statement of the service's push_delivered, its arguments where the service binds", () => {
    const fn = sqlApiFunctions().find((f) => f.name === 'claim_push_tasks_after_delivery')!.text;
    const compiled = deliveredStatement((table) => sql.table(`taskqueue.${table}`), {
      queueId: sql`${4242}`,
      names: sql`${['a']}`,
      claimsUsec: sql`${[1_700_000_000_123_456]}`,
      tombstones: sql`${[true]}`,
    }).compile(compiler);
    // Distinct values, so each bound parameter tells which argument it is.
    const argument = new Map<string, string>([
      ['4242', 'p_queue'],
      ['["a"]', 'p_names'],
      ['[1700000000123456]', 'p_claims_usec'],
      ['[true]', 'p_tombstones'],
    ]);
    const text = compiled.sql
      .replaceAll('"taskqueue".', '')
      .replace(/\$(\d+)\b/g, (_, n: string) => argument.get(JSON.stringify(compiled.parameters[Number(n) - 1]))!);
    const lines = (s: string) =>
      s
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .join('\n');
    expect(lines(fn)).toContain(lines(text));
  });
});
