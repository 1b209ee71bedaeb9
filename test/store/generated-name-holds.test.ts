import { afterEach, describe, expect, it } from 'vitest';
import { generateTaskName } from '../../src/core/generated-name.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Names the service generated are held after a delete by their form (they
 * carry their creation time and a check), not by a tombstone row; chosen
 * names still get rows. Every answer about a deleted name stays as it was.
 */
describe.each(ENGINES)('names held by their form on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  const open = async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]), { tombstoneDays: 7 });
    return t.service.getQueue('q');
  };
  const tombstoneRows = async () =>
    (await t.sql<{ name: string; reason: string }>(`select name, reason from ${t.schema}.task_tombstones order by name`)).map(
      (row) => [row.name, row.reason],
    );

  it('a delete writes a tombstone row for chosen names only, also in one batch with generated ones', async () => {
    const q = await open();
    const [generated] = await q.add([{ payload: 'g' }]);
    expect(await q.deleteTask(generated!.name)).toBe(true);
    expect(await tombstoneRows()).toEqual([]);

    const [g1, g2] = await q.add([{}, {}, { name: 'chosen' }]);
    expect(await q.deleteTask([g1!.name, 'chosen', g2!.name, 'unknown'])).toEqual([true, true, true, false]);
    expect(await tombstoneRows()).toEqual([['chosen', 'deleted']]);
    expect((await q.listTombstones()).map((x) => x.name)).toEqual(['chosen']);
    expect(await q.listTasks()).toEqual([]);
    // The storage counters gave the deleted tasks back either way.
    expect((await q.fetchStatistics()).totalTasks).toBe(0);
  });

  it('concurrent deletes that share a statement tombstone just the chosen names', async () => {
    const q = await open();
    const generated = await q.add(Array.from({ length: 30 }, () => ({})));
    const chosen = await q.add(Array.from({ length: 10 }, (_, i) => ({ name: `chosen-${i}` })));
    const names = [...generated, ...chosen].map((task) => task.name).sort();
    // One delete per name, all at once: the store combines those that wait for one in flight.
    expect(await Promise.all(names.map((name) => q.deleteTask(name)))).toEqual(names.map(() => true));
    expect(await tombstoneRows()).toEqual(chosen.map((task) => [task.name, 'deleted']));
    expect(await q.listTasks()).toEqual([]);
  });

  it('names of the older form, and generated names past the retention period, still get rows', async () => {
    const q = await open();
    // 22 characters: time and 10 random bytes, as databases made before this form hold them.
    const old = Buffer.alloc(16, 9);
    old.writeUIntBE(Date.now(), 0, 6);
    const oldName = old.toString('base64url');
    const longAgo = generateTaskName(Date.now() - 8 * DAY_MS);
    await q.add([{ name: oldName }, { name: longAgo }]);
    expect(await q.deleteTask([oldName, longAgo])).toEqual([true, true]);
    expect(await tombstoneRows()).toEqual([[oldName, 'deleted'], [longAgo, 'deleted']].sort());
  });

  it('purges and the retry limit write rows for generated names too', async () => {
    t = await openTestService(engine, serviceConfig([{ ...pullQueue('q'), maxLeases: 1 }]));
    const q = t.service.getQueue('q');
    const [dies, purged] = await q.add([{}, { countdownSeconds: 3600 }]);
    await q.leaseTasks({ lease: 60, maxTasks: 1 });
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second' where name = $1`, [dies!.name]);
    expect(await q.leaseTasks({ lease: 60, maxTasks: 1 })).toEqual([]);
    expect(await q.purge()).toBe(1);
    expect(new Set(await tombstoneRows())).toEqual(new Set([[dies!.name, 'retry_limit'], [purged!.name, 'purged']]));
  });

  it('answers get, modify, release and delete of a deleted generated name as for a tombstoned one', async () => {
    const q = await open();
    const [task] = await q.add([{}]);
    const [leased] = await q.leaseTasks({ lease: 60, maxTasks: 1 });
    expect(leased!.name).toBe(task!.name);
    expect(await q.deleteTask(leased!)).toBe(true);
    expect(await tombstoneRows()).toEqual([]);
    await expect(q.getTask(task!.name)).rejects.toMatchObject({ code: 'TOMBSTONED_TASK', details: { queue: 'q', task: task!.name } });
    await expect(q.modifyTaskLease(leased!, 10)).rejects.toMatchObject({ code: 'TOMBSTONED_TASK', details: { task: task!.name } });
    await expect(q.updateTask(leased!, { lease: 10, tag: 'x' })).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    await expect(q.releaseLease(task!.name)).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    expect(await q.deleteTask(task!.name)).toBe(false);
    expect((await q.missingTaskError(task!.name)).code).toBe('TOMBSTONED_TASK');
    // A chosen name nobody used is still unknown, and a live task's stale lease still expired.
    expect((await q.missingTaskError('never-used')).code).toBe('UNKNOWN_TASK');
    const [other] = await q.add([{}]);
    const [otherLease] = await q.leaseTasks({ lease: 60, maxTasks: 1 });
    await q.modifyTaskLease(otherLease!, 120);
    await expect(q.modifyTaskLease(otherLease!, 10)).rejects.toMatchObject({ code: 'TASK_LEASE_EXPIRED', details: { task: other!.name } });
  });
});
