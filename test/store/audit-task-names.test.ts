import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_NAMES_KEPT } from '../../src/core/audit-log.js';
import { PgAuditLog } from '../../src/store/audit-log.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';

/**
 * A bulk operator action's audit entry names the tasks it touched
 * (sql/0020): a selection in full, name order; an action on all matching
 * a filter by its first AUDIT_NAMES_KEPT, with the count of all.
 */
describe.each(ENGINES)('audit entries name their tasks on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  const log = () => new PgAuditLog({ db: t.db, schema: t.schema });
  const latest = async () => (await log().list({ limit: 1 }))[0]!;
  const killAll = async () => {
    const q = t.service.getQueue('q');
    for (let round = 0; round < 3; round++) {
      await q.leaseTasks({ lease: 60, maxTasks: 100 });
      await t.sql(`update ${t.schema}.tasks set eta = eta - interval '8 days'`);
    }
  };

  it('names a selection in full: delete, release, run now, dead letters redriven and deleted', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 2 })]));
    const q = t.service.getQueue('q');
    const ops = t.operate('q');
    await q.add(['c', 'a', 'b', 'd', 'e'].map((name) => ({ name })));

    expect(await ops.deleteTasks(['c', 'a', 'nobody'])).toEqual([true, true, false]);
    expect(await latest()).toMatchObject({ action: 'delete_task', count: 2, names: ['a', 'c'], target: null });

    await q.leaseTasks({ lease: 3600, maxTasks: 10 });
    await ops.releaseLeases(['d', 'b']);
    expect(await latest()).toMatchObject({ action: 'release_lease', count: 2, names: ['d', 'b'] });

    await q.leaseTasks({ lease: 3600, maxTasks: 10 });
    await ops.runNow({ names: ['e', 'b'] });
    expect(await latest()).toMatchObject({ action: 'run_now', count: 2, names: ['b', 'e'] });

    await killAll();
    expect(await ops.redrive(['d', 'b'])).toBe(2);
    expect(await latest()).toMatchObject({ action: 'redrive', count: 2 });
    expect([...(await latest()).names].sort()).toEqual(['b', 'd']);

    await killAll();
    expect(await ops.deleteDeadLetters(['e', 'b', 'gone'])).toBe(2);
    expect(await latest()).toMatchObject({ action: 'delete_dead_letters', count: 2, names: ['b', 'e'] });

    // Actions on no task name none.
    await ops.pause();
    expect(await latest()).toMatchObject({ action: 'pause', names: [] });
  });

  it('an action on all matching a filter keeps its first names and counts them all', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    const total = AUDIT_NAMES_KEPT + 50;
    for (let from = 0; from < total; from += 100) {
      const batch = Array.from({ length: Math.min(100, total - from) }, (_, i) => ({
        name: `t${String(from + i).padStart(5, '0')}`,
        countdownSeconds: 3600,
      }));
      await q.add(batch);
    }
    expect((await t.operate('q').runNow({ filter: { state: 'delayed' } })).count).toBe(total);
    const entry = await latest();
    expect(entry).toMatchObject({ action: 'run_now', count: total, target: null });
    expect(entry.names).toHaveLength(AUDIT_NAMES_KEPT);
    expect(new Set(entry.names).size).toBe(AUDIT_NAMES_KEPT);
    expect(entry.names.every((name) => /^t\d{5}$/.test(name))).toBe(true);
  });

  it('an entry written before names were kept reads as naming none', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    await t.sql(
      `insert into ${t.schema}.audit_log (actor, action, queue, count, source) values ('old', 'redrive', 'q', 3, 'console')`,
    );
    expect(await latest()).toMatchObject({ actor: 'old', count: 3, names: [] });
  });
});
