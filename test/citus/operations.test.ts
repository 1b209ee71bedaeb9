import { afterEach, describe, expect, it } from 'vitest';
import { openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { operatorOf } from '../helpers/operator-of.js';

/**
 * Operations on the Citus coordinator through the service, with test SQL
 * that keeps Citus' rules: rows are backdated to values computed apart from
 * their columns (Citus refuses `eta - interval` in an UPDATE: a STABLE
 * function of a column).
 */
describe('operations on Citus', () => {
  let t: TestService;
  afterEach(async () => t?.close());

  const expireAll = async () => t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);

  it('migrate distributes the queue tables by queue_id, co-located, and makes the shared ones reference tables', async () => {
    t = await openTestService('postgres', serviceConfig([pullQueue('q')]));
    const rows = await t.sql<{ name: string; method: string; colocated: boolean }>(
      `select c.relname as name, p.partmethod as method,
              p.colocationid = (select colocationid from pg_dist_partition where logicalrelid = $1::regclass) as colocated
         from pg_dist_partition p join pg_class c on c.oid = p.logicalrelid
        where c.relnamespace = $2::regnamespace order by 1`,
      [`${t.schema}.tasks`, t.schema],
    );
    const placed = Object.fromEntries(
      rows.map((r) => [r.name, r.method === 'h' && r.colocated ? 'distributed' : r.method]),
    );
    expect(placed).toMatchObject({
      tasks: 'distributed',
      task_tombstones: 'distributed',
      queue_storage: 'distributed',
      task_dead_letters: 'distributed',
      queues: 'n',
      service_settings: 'n',
    });
    expect(placed.audit_log).toBeUndefined();
    // A second migrate finds nothing to do.
    const again = await t.openAnother();
    expect(await again.getQueue('q').add({ name: 'after-a-second-start' })).toMatchObject({
      name: 'after-a-second-start',
    });
  });

  it('leases plain, by tag and grouped by the oldest tag; modifies and deletes', async () => {
    t = await openTestService('postgres', serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    await q.add([{ name: 'a', tag: 'red' }, { name: 'b', tag: 'blue' }, { name: 'c', tag: 'red' }, { name: 'd' }]);
    expect((await q.leaseTasks({ lease: 60, maxTasks: 10, tag: 'blue' })).map((x) => x.name)).toEqual(['b']);
    expect((await q.leaseTasks({ lease: 60, maxTasks: 10, groupByTag: true })).map((x) => x.name)).toEqual(['a', 'c']);
    const [d] = await q.leaseTasks({ lease: 60, maxTasks: 10 });
    expect(d?.name).toBe('d');
    const renewed = await q.modifyTaskLease(d!, 120);
    expect(renewed.etaUsec).toBeGreaterThan(d!.etaUsec);
    await expect(q.modifyTaskLease(d!, 30)).rejects.toMatchObject({ code: 'TASK_LEASE_EXPIRED' });
    expect(await q.deleteTask(['a', 'b', 'c', 'd'])).toEqual([true, true, true, true]);
    await expect(q.add({ name: 'a' })).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    await expect(q.modifyTaskLease({ ...d!, name: 'a' }, 30)).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    expect((await q.fetchStatistics()).totalTasks).toBe(0);
  });

  it('drops a task at the retry limit to the dead letters, redrives it, and cleans up', async () => {
    t = await openTestService('postgres', serviceConfig([pullQueue('limited', { maxLeases: 1 })]), {
      deadLetterDays: 1,
      tombstoneDays: 1,
    });
    const q = t.service.getQueue('limited');
    await q.add([{ name: 'doomed', payload: 'x' }, { name: 'other' }]);
    expect((await q.leaseTasks({ lease: 60, maxTasks: 1 }))[0]?.name).toBe('doomed');
    await expireAll();
    expect((await q.leaseTasks({ lease: 60, maxTasks: 5 })).map((x) => x.name)).toEqual(['other']);
    expect((await operatorOf(q).listDeadLetters({ limit: 10 })).map((x) => x.name)).toEqual(['doomed']);
    expect(await operatorOf(q).redrive(['doomed'])).toBe(1);
    expect((await q.leaseTasks({ lease: 60, maxTasks: 5 })).map((x) => x.name)).toEqual(['doomed']);
    await expireAll();
    expect(await q.leaseTasks({ lease: 60, maxTasks: 5 })).toEqual([]);
    expect(await operatorOf(q).listDeadLetters({ limit: 10 })).toHaveLength(2);
    await t.sql(`update ${t.schema}.task_dead_letters set died_at = now() - interval '2 days'`);
    await t.sql(`update ${t.schema}.task_tombstones set deleted_at = now() - interval '2 days'`);
    const cleaned = (await t.service.runCleanup()) as { deadLettersRemoved: number; tombstonesRemoved: number };
    expect(cleaned).toMatchObject({ deadLettersRemoved: 2 });
    expect(cleaned.tombstonesRemoved).toBeGreaterThanOrEqual(1);
    expect(await q.add({ name: 'doomed' })).toMatchObject({ name: 'doomed' });
  });

  it('pauses, resumes and purges', async () => {
    t = await openTestService('postgres', serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    await q.add(Array.from({ length: 30 }, (_, i) => ({ name: `t-${i}` })));
    await operatorOf(q).pause();
    await expect(q.leaseTasks({ lease: 60, maxTasks: 1 })).rejects.toMatchObject({ code: 'QUEUE_PAUSED' });
    await operatorOf(q).resume();
    expect(await q.leaseTasks({ lease: 60, maxTasks: 1 })).toHaveLength(1);
    expect(await operatorOf(q).purge()).toBe(30);
    expect((await q.fetchStatistics()).totalTasks).toBe(0);
  });

  it('runs the SQL API functions', async () => {
    t = await openTestService('postgres', serviceConfig([pullQueue('jobs')]));
    const s = t.schema;
    const [added] = await t.sql<{ name: string }>(`select ${s}.add_task('jobs', 'x'::bytea, 'sql-1') as name`);
    expect(added?.name).toBe('sql-1');
    const [batch] = await t.sql<{ names: string[] }>(
      `select ${s}.add_tasks('jobs', array['a', 'b', 'c']::bytea[]) as names`,
    );
    expect(batch?.names).toHaveLength(3);
    // The token as text: a Date would lose its microseconds.
    const leased = await t.sql<{ name: string; lease_expires_at: string }>(
      `select name, lease_expires_at::text from ${s}.lease_tasks('jobs', 10, 60)`,
    );
    expect(leased).toHaveLength(4);
    const one = leased.find((x) => x.name === 'sql-1')!;
    await t.sql(`select ${s}.modify_lease('jobs', 'sql-1', $1::timestamptz, 120)`, [one.lease_expires_at]);
    const [deleted] = await t.sql<{ done: boolean[] }>(`select ${s}.delete_tasks('jobs', $1::text[]) as done`, [
      leased.map((x) => x.name),
    ]);
    expect(deleted?.done).toEqual([true, true, true, true]);
  });
});
