import { afterEach, describe, expect, it } from 'vitest';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';

/**
 * Where one statement does an operator's action, its audit entry rides in
 * that statement: when the entry cannot be written, the action does not
 * happen either (and the other way round, tested by every audit test).
 */
describe.each(ENGINES)('audit entries commit with their action on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  it('pause, resume, release and delete are undone when their entry is refused', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    await q.add([{ name: 'held' }, { name: 'kept' }]);
    const [held] = await q.leaseTasks({ lease: 3600, maxTasks: 1 });
    // The database refuses entries of this actor: each statement fails whole.
    await t.sql(`alter table ${t.schema}.audit_log add constraint refuse_actor check (actor <> 'refused')`);
    const refused = t.service.operate('q', { actor: 'refused', source: 'test' });

    await expect(refused.pause()).rejects.toBeDefined();
    expect(await q.isPaused()).toBe(false);
    await expect(refused.releaseLease('held')).rejects.toBeDefined();
    expect((await q.getTask('held')).etaUsec).toBe(held!.etaUsec);
    await expect(refused.deleteTasks(['kept'])).rejects.toBeDefined();
    expect((await q.getTask('kept')).name).toBe('kept');
    expect(await t.sql(`select count(*)::int as n from ${t.schema}.audit_log`)).toEqual([{ n: 0 }]);

    // Allowed, the action and its entry both stand.
    const allowed = t.operate('q');
    await allowed.pause();
    expect(await q.isPaused()).toBe(true);
    expect((await allowed.releaseLease('held')).released).toBe(true);
    expect(await allowed.deleteTasks(['kept', 'nobody'])).toEqual([true, false]);
    expect(await t.sql(`select action, target, count from ${t.schema}.audit_log order by id`)).toEqual([
      { action: 'pause', target: null, count: 0 },
      { action: 'release_lease', target: 'held', count: 1 },
      { action: 'delete_task', target: null, count: 1 },
    ]);
  });

  it('a release of a task that is not live fails and records nothing', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    await expect(t.operate('q').releaseLease('nobody')).rejects.toMatchObject({ code: 'UNKNOWN_TASK' });
    expect(await t.sql(`select count(*)::int as n from ${t.schema}.audit_log`)).toEqual([{ n: 0 }]);
  });
});
