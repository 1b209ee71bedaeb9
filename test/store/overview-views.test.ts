import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LEASE_RATE } from '../../src/core/queue-config.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { operatorOf } from '../helpers/operator-of.js';

describe.each(ENGINES)('overview and operator views on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  /**
   * Queue `a` (retry limit 1, storage limit 10000): `dead` leased once and
   * dropped by its second lease, `a1` leased, `a2` and `a3` available (`a2`
   * for 1000 s), `late` delayed an hour; 2 tasks leased a moment ago and 5
   * ten minutes ago. Queue `b` (20/s) paused and empty.
   */
  const knownSequence = async () => {
    t = await openTestService(
      engine,
      serviceConfig([
        pullQueue('a', { maxLeases: 1, storageLimitBytes: 10_000 }),
        pullQueue('b', { leaseRate: { calls: 20, windowSeconds: 1 } }),
      ]),
    );
    const a = t.service.getQueue('a');
    const now = Date.now();
    await a.add([
      { name: 'dead', payload: 'zz', tag: 'd', eta: new Date(now - 100_000) },
      { name: 'a1', payload: 'xx', eta: new Date(now - 50_000) },
      { name: 'a2', payload: 'xx', eta: new Date(now - 40_000) },
      { name: 'a3', payload: 'xx', eta: new Date(now - 30_000) },
      { name: 'late', countdownSeconds: 3600 },
    ]);
    expect((await a.leaseTasks({ lease: 600, maxTasks: 2 })).map((x) => x.name)).toEqual(['dead', 'a1']);
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '2000 seconds' where name = 'dead'`);
    expect(await a.leaseTasks({ lease: 600, maxTasks: 1 })).toEqual([]);
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1000 seconds' where name = 'a2'`);
    await t.sql(
      `insert into ${t.schema}.lease_history (queue_id, leased_at, task_count) values ($1, now() - interval '10 minutes', 5)`,
      [a.id],
    );
    await operatorOf(t.service.getQueue('b')).pause();
    return a;
  };

  it('overview reports every configured queue from one query, after a known sequence', async () => {
    await knownSequence();
    const overview = await t.service.overview();
    expect(overview.map((o) => o.name)).toEqual(['default', 'a', 'b']);
    const [defaultQueue, a, b] = overview;
    const age = a!.oldestAvailableAgeSeconds!;
    expect(age).toBeGreaterThanOrEqual(1000);
    expect(age).toBeLessThan(1100);
    expect({ ...a, oldestAvailableAgeSeconds: 'checked' }).toEqual({
      name: 'a',
      mode: 'pull',
      paused: false,
      availableTasks: 2,
      leasedTasks: 1,
      delayedTasks: 1,
      oldestAvailableAgeSeconds: 'checked',
      leasedLastMinute: 2,
      leasedLastHour: 7,
      deadLetters: 1,
      storageBytes: 3 * ('a1'.length + 'xx'.length) + 'late'.length,
      storageLimitBytes: 10_000,
      retryLimit: 1,
      leaseRate: null,
      longLeases: 0,
    });
    expect(b).toEqual({
      name: 'b',
      mode: 'pull',
      paused: true,
      availableTasks: 0,
      leasedTasks: 0,
      delayedTasks: 0,
      oldestAvailableAgeSeconds: null,
      leasedLastMinute: 0,
      leasedLastHour: 0,
      deadLetters: 0,
      storageBytes: 0,
      storageLimitBytes: null,
      retryLimit: null,
      leaseRate: { calls: 20, windowSeconds: 1 },
      longLeases: 0,
    });
    expect(defaultQueue).toMatchObject({ name: 'default', mode: 'push', paused: false, leaseRate: DEFAULT_LEASE_RATE });
  });

  it('the views answer with readable columns', async () => {
    const a = await knownSequence();
    await a.deleteTask('a3');
    await t.service.getQueue('b').add({ name: 'gone' });
    expect(await operatorOf(t.service.getQueue('b')).purge()).toBe(1);

    const [stats] = await t.sql<Record<string, unknown>>(
      `select queue, mode, paused, total_tasks::int as total, available_tasks::int as available, leased_tasks::int as leased,
              delayed_tasks::int as delayed, oldest_available_age_seconds >= 1000 as old_enough, leased_last_minute::int as minute,
              leased_last_hour::int as hour, dead_letters::int as dead, storage_bytes::int as bytes, storage_limit_bytes::int as byte_limit,
              retry_limit, lease_rate_calls, lease_rate_seconds
         from ${t.schema}.queue_stats where queue = 'a'`,
    );
    expect(stats).toEqual({
      queue: 'a',
      mode: 'pull',
      paused: false,
      total: 3,
      available: 1,
      leased: 1,
      delayed: 1,
      old_enough: true,
      minute: 2,
      hour: 7,
      dead: 1,
      bytes: 12,
      byte_limit: 10_000,
      retry_limit: 1,
      lease_rate_calls: null,
      lease_rate_seconds: null,
    });
    expect(
      await t.sql(`select queue, paused, total_tasks::int as total from ${t.schema}.queue_stats where queue = 'b'`),
    ).toEqual([{ queue: 'b', paused: true, total: 0 }]);

    expect(
      await t.sql(
        `select queue, task_name, tag, lease_count, lease_remaining > interval '500 seconds' as remaining, payload_bytes
           from ${t.schema}.leased_tasks`,
      ),
    ).toEqual([{ queue: 'a', task_name: 'a1', tag: null, lease_count: 1, remaining: true, payload_bytes: 2 }]);

    expect(
      await t.sql(
        `select queue, task_name, reason, retry_count, deleted_ago < interval '1 hour' as recent
           from ${t.schema}.recent_tombstones order by task_name`,
      ),
    ).toEqual([
      { queue: 'a', task_name: 'a3', reason: 'deleted', retry_count: 0, recent: true },
      { queue: 'a', task_name: 'dead', reason: 'retry_limit', retry_count: 1, recent: true },
      { queue: 'b', task_name: 'gone', reason: 'purged', retry_count: 0, recent: true },
    ]);

    const dead = await t.sql<{
      queue: string;
      task_name: string;
      tag: string;
      retry_count: number;
      payload_bytes: number;
      payload: Uint8Array;
      died_after_enqueue: boolean;
    }>(
      `select queue, task_name, tag, retry_count, payload_bytes, payload, died_at > enqueued_at as died_after_enqueue
         from ${t.schema}.dead_letters`,
    );
    expect(dead.map((d) => ({ ...d, payload: Buffer.from(d.payload).toString() }))).toEqual([
      {
        queue: 'a',
        task_name: 'dead',
        tag: 'd',
        retry_count: 1,
        payload_bytes: 2,
        payload: 'zz',
        died_after_enqueue: true,
      },
    ]);
  });
});
