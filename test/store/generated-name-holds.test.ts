import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { generateTaskName, generatedNameTime } from '../../src/core/generated-name.js';
import { importedTask, toExportLine } from '../../src/core/task-export.js';
import { ENGINES, openTestService, testPgUrl, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { operatorOf } from '../helpers/operator-of.js';

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
    (
      await t.sql<{ name: string; reason: string }>(
        `select name, reason from ${t.schema}.task_tombstones order by name`,
      )
    ).map((row) => [row.name, row.reason]);
  const code = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: unknown) => (isQueueError(e) ? e.code : String(e)),
    );

  it('a delete writes a tombstone row for chosen names only, also in one batch with generated ones', async () => {
    const q = await open();
    const [generated] = await q.add([{ payload: 'g' }]);
    expect(await q.deleteTask(generated!.name)).toBe(true);
    expect(await tombstoneRows()).toEqual([]);

    const [g1, g2] = await q.add([{}, {}, { name: 'chosen' }]);
    expect(await q.deleteTask([g1!.name, 'chosen', g2!.name, 'unknown'])).toEqual([true, true, true, false]);
    expect(await tombstoneRows()).toEqual([['chosen', 'deleted']]);
    expect((await operatorOf(q).listTombstones()).map((x) => x.name)).toEqual(['chosen']);
    expect(await q.listTasks()).toEqual([]);
    // The storage counters gave the deleted tasks back either way.
    expect((await q.fetchStatistics()).totalTasks).toBe(0);
  });

  it('names the database makes (add_tasks, add_task) are of the form Node reads, distinct, and of now', async () => {
    await open();
    const [row] = await t.sql<{ names: string[]; one: string }>(
      `select ${t.schema}.add_tasks('q', array_fill('\\x01'::bytea, array[100])) as names, ${t.schema}.add_task('q', '\\x02'::bytea) as one`,
    );
    const names = [...row!.names, row!.one];
    expect(new Set(names).size).toBe(101);
    for (const name of names) {
      const made = generatedNameTime(name);
      expect(made, name).not.toBeNull();
      expect(Math.abs(made! - Date.now())).toBeLessThan(60_000);
    }
    // And Node's names read the same in the database.
    const node = generateTaskName();
    const [read] = await t.sql<{ ms: string }>(
      `select (extract(epoch from ${t.schema}.generated_name_time($1)) * 1000)::int8 as ms`,
      [node],
    );
    expect(Number(read!.ms)).toBe(generatedNameTime(node));
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
    expect(await tombstoneRows()).toEqual(
      [
        [oldName, 'deleted'],
        [longAgo, 'deleted'],
      ].sort(),
    );
    expect(await code(q.add({ name: longAgo }))).toBe('TOMBSTONED_TASK');
  });

  it('purges and the retry limit write rows for generated names too', async () => {
    t = await openTestService(engine, serviceConfig([{ ...pullQueue('q'), maxLeases: 1 }]));
    const q = t.service.getQueue('q');
    const [dies, purged] = await q.add([{}, { countdownSeconds: 3600 }]);
    await q.leaseTasks({ lease: 60, maxTasks: 1 });
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second' where name = $1`, [dies!.name]);
    expect(await q.leaseTasks({ lease: 60, maxTasks: 1 })).toEqual([]);
    expect(await operatorOf(q).purge()).toBe(1);
    expect(new Set(await tombstoneRows())).toEqual(
      new Set([
        [dies!.name, 'retry_limit'],
        [purged!.name, 'purged'],
      ]),
    );
  });

  it('answers get, modify, release and delete of a deleted generated name as for a tombstoned one', async () => {
    const q = await open();
    const [task] = await q.add([{}]);
    const [leased] = await q.leaseTasks({ lease: 60, maxTasks: 1 });
    expect(leased!.name).toBe(task!.name);
    expect(await q.deleteTask(leased!)).toBe(true);
    expect(await tombstoneRows()).toEqual([]);
    await expect(q.getTask(task!.name)).rejects.toMatchObject({
      code: 'TOMBSTONED_TASK',
      details: { queue: 'q', task: task!.name },
    });
    await expect(q.modifyTaskLease(leased!, 10)).rejects.toMatchObject({
      code: 'TOMBSTONED_TASK',
      details: { task: task!.name },
    });
    await expect(q.updateTask(leased!, { lease: 10, tag: 'x' })).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    await expect(operatorOf(q).releaseLease(task!.name)).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    expect(await q.deleteTask(task!.name)).toBe(false);
    expect((await q.missingTaskError(task!.name)).code).toBe('TOMBSTONED_TASK');
    // A chosen name nobody used is still unknown, and a live task's stale lease still expired.
    expect((await q.missingTaskError('never-used')).code).toBe('UNKNOWN_TASK');
    const [other] = await q.add([{}]);
    const [otherLease] = await q.leaseTasks({ lease: 60, maxTasks: 1 });
    await q.modifyTaskLease(otherLease!, 120);
    await expect(q.modifyTaskLease(otherLease!, 10)).rejects.toMatchObject({
      code: 'TASK_LEASE_EXPIRED',
      details: { task: other!.name },
    });
  });

  it('refuses an explicit add of a generated name: TOMBSTONED_TASK once deleted, TASK_ALREADY_EXISTS while live', async () => {
    const q = await open();
    const [live, gone] = await q.add([{ payload: 'live' }, { payload: 'gone' }]);
    await q.deleteTask(gone!.name);
    await expect(q.add({ name: gone!.name })).rejects.toMatchObject({
      code: 'TOMBSTONED_TASK',
      details: { queue: 'q', task: gone!.name },
    });
    await expect(q.add({ name: live!.name })).rejects.toMatchObject({
      code: 'TASK_ALREADY_EXISTS',
      details: { task: live!.name },
    });
    // In a batch, all or nothing; the live name is the one reported.
    await expect(q.add([{ name: 'fine' }, { name: gone!.name }, { name: live!.name }])).rejects.toMatchObject({
      code: 'TASK_ALREADY_EXISTS',
      details: { task: live!.name },
    });
    expect(await code(q.add([{ name: 'fine' }, { name: gone!.name }]))).toBe('TOMBSTONED_TASK');
    // A generated name never used in this queue is held all the same: only the service makes them.
    expect(await code(q.add({ name: generateTaskName() }))).toBe('TOMBSTONED_TASK');
    expect((await q.listTasks()).map((x) => x.name)).toEqual([live!.name]);
    // The task is unchanged by the refused adds.
    expect((await q.getTask(live!.name)).payload.toString()).toBe('live');
  });

  it('accepts an explicit generated name made longer ago than the retention period, and restores held ones', async () => {
    const q = await open();
    const longAgo = generateTaskName(Date.now() - 7 * DAY_MS - 60_000);
    expect((await q.add({ name: longAgo, payload: 'back' })).name).toBe(longAgo);
    // An import restores exported tasks under their generated names.
    const [a, b] = await q.add([
      { payload: 'a', tag: 't' },
      { payload: 'b', countdownSeconds: 600 },
    ]);
    const lines = [a!, b!].map(toExportLine);
    await operatorOf(q).purge();
    await t.sql(`delete from ${t.schema}.task_tombstones`);
    const restored = await q.add(lines.map(importedTask), { restore: true });
    expect(restored.map(toExportLine)).toEqual(lines);
    // restore does not get past a live task.
    await expect(q.add(importedTask(lines[0]!), { restore: true })).rejects.toMatchObject({
      code: 'TASK_ALREADY_EXISTS',
    });
  });
});

describe('names held by their form inside the caller transaction (postgres)', () => {
  let t: TestService;
  let pool: pg.Pool;
  afterEach(async () => {
    await pool?.end();
    await t?.close();
  });

  it('refuses a generated name the transaction itself added as existing, and a deleted one as deleted; a savepoint carries the transaction on', async () => {
    t = await openTestService('postgres', serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    pool = new pg.Pool({ connectionString: testPgUrl(), max: 1 });
    const [gone] = await q.add([{}]);
    await q.deleteTask(gone!.name);
    const client = await pool.connect();
    try {
      await client.query('begin');
      const added = await q.add({ payload: 'in transaction' }, { transaction: client });
      // A refusal fails the add's statement, and so the transaction, as
      // any refused statement does: a savepoint lets it go on.
      await client.query('savepoint before_add');
      await expect(q.add({ name: added.name }, { transaction: client })).rejects.toMatchObject({
        code: 'TASK_ALREADY_EXISTS',
      });
      await expect(q.add({ payload: 'after' }, { transaction: client })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        message: expect.stringMatching(/aborted/),
      });
      await client.query('rollback to savepoint before_add');
      await expect(q.add([{ name: gone!.name }], { transaction: client })).rejects.toMatchObject({
        code: 'TOMBSTONED_TASK',
      });
      await client.query('rollback to savepoint before_add');
      await client.query('commit');
    } finally {
      client.release();
    }
    expect((await q.listTasks()).map((x) => x.payload.toString())).toEqual(['in transaction']);
  });
});
