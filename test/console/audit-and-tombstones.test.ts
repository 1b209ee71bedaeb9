import { afterEach, describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { OverviewSampler } from '../../src/console/overview-sampler.js';
import { PgAuditLog } from '../../src/store/audit-log.js';
import { PgDepthHistory } from '../../src/store/depth-history.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { operatorOf } from '../helpers/operator-of.js';

describe.each(ENGINES)('audit log and recent tombstones on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  const auditLogOf = (service: TestService) => new PgAuditLog({ db: service.db, schema: service.schema });

  it('records who did what to which queue, and lists newest first, by page and by queue', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q'), pullQueue('r')]));
    const log = auditLogOf(t);
    const first = await log.record({ actor: 'admin@example.com', action: 'pause', queue: 'q', count: 0 });
    expect(first).toMatchObject({
      actor: 'admin@example.com',
      action: 'pause',
      queue: 'q',
      target: null,
      count: 0,
      source: 'console',
    });
    const [now] = await t.sql<{ usec: string }>(`select (extract(epoch from now()) * 1000000)::int8::text as usec`);
    expect(Math.abs(first.atUsec - Number(now!.usec))).toBeLessThan(60_000_000);
    await log.record({ actor: 'admin@example.com', action: 'purge', queue: 'q', count: 12 });
    await log.record({ actor: 'ops@example.com', action: 'delete_task', queue: 'r', target: 'task-1', count: 1 });

    const all = await log.list({ limit: 10 });
    expect(all.map((e) => [e.action, e.queue, e.target, e.count])).toEqual([
      ['delete_task', 'r', 'task-1', 1],
      ['purge', 'q', null, 12],
      ['pause', 'q', null, 0],
    ]);
    const page = await log.list({ limit: 2 });
    expect(page).toHaveLength(2);
    expect((await log.list({ limit: 2, before: page[1]! })).map((e) => e.action)).toEqual(['pause']);
    expect((await log.list({ limit: 10, queue: 'q' })).map((e) => e.action)).toEqual(['purge', 'pause']);

    // A payload-like actor or target is stored as given, bound, never spliced into SQL.
    const odd = await log.record({
      actor: "x'); drop table tasks; --@example.com",
      action: 'redrive',
      queue: 'q',
      target: '<script>',
      count: 2,
    });
    expect((await log.list({ limit: 1 }))[0]).toEqual(odd);

    await expect(log.record({ actor: 'a@example.com', action: 'purge', queue: 'q', count: -1 })).rejects.toSatisfy(
      isQueueError,
    );
    await expect(log.list({ limit: 0 })).rejects.toSatisfy(isQueueError);
  });

  it("lists a queue's recent tombstones newest first, with the reason the task went", async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 1 }), pullQueue('r')]));
    const q = t.service.getQueue('q');
    await q.add([{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }]);
    await t.service.getQueue('r').add({ name: 'other' });
    await t.service.getQueue('r').deleteTask('other');
    await q.deleteTask('a');
    await t.sql(
      `update ${t.schema}.task_tombstones set deleted_at = deleted_at - interval '3 minutes' where name = 'a'`,
    );
    // b is leased once, its lease lapses, and the next lease drops it at the retry limit.
    await q.leaseTasks({ lease: 60, maxTasks: 1 });
    await t.sql(`update ${t.schema}.tasks set eta = eta - interval '2 minutes' where name = 'b'`);
    await t.sql(`update ${t.schema}.tasks set eta = eta + interval '1 hour' where name in ('c', 'd')`);
    await q.leaseTasks({ lease: 60, maxTasks: 1 });
    await t.sql(
      `update ${t.schema}.task_tombstones set deleted_at = deleted_at - interval '2 minutes' where name = 'b'`,
    );
    await operatorOf(q).purge();

    const tombstones = await operatorOf(q).listTombstones();
    expect(tombstones.map((x) => [x.name, x.reason])).toEqual([
      ['d', 'purged'],
      ['c', 'purged'],
      ['b', 'retry_limit'],
      ['a', 'deleted'],
    ]);
    expect(tombstones[2]).toMatchObject({ queueName: 'q', retryCount: 1 });
    expect(tombstones[0]!.deletedUsec).toBeGreaterThan(tombstones[3]!.deletedUsec);
    expect(await operatorOf(q).listTombstones({ limit: 1 })).toHaveLength(1);
    await expect(operatorOf(q).listTombstones({ limit: 0 })).rejects.toSatisfy(isQueueError);
  });

  it('counts tasks leased per minute over the last hour, from the lease history', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q'), pullQueue('r')]));
    const q = t.service.getQueue('q');
    await q.add([{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }]);
    await t.service.getQueue('r').add({ name: 'other' });
    await t.service.getQueue('r').leaseTasks({ lease: 60, maxTasks: 1 });
    await q.leaseTasks({ lease: 60, maxTasks: 3 });
    await t.sql(
      `update ${t.schema}.lease_history set leased_at = leased_at - interval '10 minutes' where task_count = 3`,
    );
    await q.leaseTasks({ lease: 60, maxTasks: 1 });
    // Older than an hour: not counted.
    await t.sql(
      `insert into ${t.schema}.lease_history (queue_id, leased_at, task_count) values ($1, now() - interval '2 hours', 50)`,
      [q.id],
    );

    const counts = await operatorOf(q).leasesPerMinute();
    expect(counts).toHaveLength(60);
    expect(counts.every((c, i) => i === 0 || c.minuteStart - counts[i - 1]!.minuteStart === 60)).toBe(true);
    expect(counts.reduce((sum, c) => sum + c.tasks, 0)).toBe(4);
    expect(counts.filter((c) => c.tasks === 3)).toHaveLength(1);
    const [now] = await t.sql<{ minute: string }>(
      `select extract(epoch from date_trunc('minute', now()))::int8::text as minute`,
    );
    expect(counts.at(-1)!.minuteStart).toBe(Number(now!.minute));
  });

  it('keeps depth samples in the database: one per queue and bucket, the last hour, read back after a restart', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q'), pullQueue('r')]));
    const history = new PgDepthHistory({ db: t.db, schema: t.schema });
    await t.service.getQueue('q').add([{ name: 'a' }, { name: 'b' }]);
    const sampler = new OverviewSampler({ read: () => t.service.overview(), intervalSeconds: 3600, history });
    await sampler.sample();
    // A second process sampling in the same bucket adds no row; its figures, the latest, win.
    await t.service.getQueue('q').add({ name: 'c' });
    await new OverviewSampler({ read: () => t.service.overview(), intervalSeconds: 3600, history }).sample();
    const [{ n }] = (await t.sql<{ n: string }>(`select count(*)::text as n from ${t.schema}.queue_depth_samples`)) as [
      { n: string },
    ];
    expect(n).toBe('3');
    // Moved to a known time (the hour's bucket may have begun up to an hour ago); an older sample, and one past the hour that the next sample forgets.
    await t.sql(`update ${t.schema}.queue_depth_samples set at = now() - interval '1 minute'`);
    await t.sql(
      `insert into ${t.schema}.queue_depth_samples values ('q', now() - interval '30 minutes', 7, 1, 0), ('q', now() - interval '2 hours', 9, 9, 9)`,
    );
    await history.record([], { bucketSeconds: 10, keepSeconds: 3600 });
    // A new sampler (a restarted process) reads what was kept.
    const series = await new OverviewSampler({ read: async () => [], history }).series('q');
    expect(series.available).toEqual([7, 3]);
    expect(series.leased).toEqual([1, 0]);
    expect(Math.abs(series.at[1]! - series.at[0]! - 29 * 60)).toBeLessThanOrEqual(2);
    expect((await history.series('r', 3600)).available).toEqual([0]);
    expect(await history.series('nothing', 3600)).toEqual({ at: [], available: [], leased: [], delayed: [] });
  });
});
