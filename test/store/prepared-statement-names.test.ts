import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { openTestService, type TestService } from '../helpers/engines.js';
import { operatorOf } from '../helpers/operator-of.js';

describe('prepared statement names (postgres)', () => {
  let t: TestService;
  afterEach(async () => t?.close());

  it('shows operators each runtime query by name in pg_prepared_statements', async () => {
    // One connection, so every statement below is prepared on the session we inspect.
    t = await openTestService('postgres', serviceConfig([pullQueue('q')]), { poolSize: 1 });
    const q = t.service.getQueue('q');
    await q.add([{ name: 'a', tag: 'x' }, { name: 'b' }]);
    const [task] = await q.leaseTasks({ lease: 60, maxTasks: 1 });
    await q.modifyTaskLease(task!, 30);
    // A worker's fenced delete: of a generated name, plain; of a chosen name, with its tombstone.
    await q.add([{}, { name: 'c' }]);
    const held = (await q.leaseTasks({ lease: 60, maxTasks: 3 })).filter((h) => h.name !== 'b');
    expect(await q.deleteLeasedTasks(held.filter((h) => h.name !== 'c'))).toEqual([true]);
    expect(await q.deleteLeasedTasks(held.filter((h) => h.name === 'c'))).toEqual([true]);
    await expect(q.getTask('c')).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    await q.getTask('b');
    await q.listTasks();
    await q.fetchStatistics();
    await operatorOf(q).pause();
    await q.isPaused();
    await q.deleteTask(['a', 'b']);
    await expect(q.getTask('a')).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    // A generated name: deleted without a tombstone, and refused when given back.
    const generated = await q.add({});
    await q.deleteTask(generated.name);
    await expect(q.add({ name: generated.name })).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });

    const db = t.db;
    const rows = (
      await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db)
    ).rows;
    const labels = new Set(rows.map((row) => /^taskqueue_([a-z_]+)_[0-9a-f]{12}$/.exec(row.name)?.[1]));
    for (const label of [
      'insert_tasks',
      'lease_tasks',
      'modify_lease',
      'get_task',
      'list_tasks',
      'queue_stats',
      'set_paused_on',
      'is_paused',
      'delete_tasks',
      'is_tombstoned',
      'delete_tasks_untracked',
      'delete_leased_tasks',
      'delete_leased_tasks_untracked',
    ]) {
      expect(labels, label).toContain(label);
    }
    expect(labels).not.toContain(undefined);
    // The label opens the text too, which is what pg_stat_statements shows.
    expect(rows.find((row) => row.name.startsWith('taskqueue_lease_tasks_'))?.statement).toMatch(
      /^\/\* lease_tasks \*\//,
    );
  });
});
