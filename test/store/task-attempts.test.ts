import { afterEach, describe, expect, it } from 'vitest';
import { ATTEMPTS_KEPT } from '../../src/core/task-attempt.js';
import { cleanupAttempts, type AttemptSweep } from '../../src/store/task-attempts.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

describe.each(ENGINES)('attempt history and run-now on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  const expire = (name: string) =>
    t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second' where name = $1`, [name]);
  const leaseOne = async () => (await t.service.getQueue('q').leaseTasks({ lease: 60, maxTasks: 1 }))[0]!;

  it('keeps a worker error, a lapse noticed at the next lease, newest first; a lapse never replaces the error', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    await q.add({ name: 'flaky' });
    const first = await leaseOne();
    await q.failTask(first, new TypeError('upstream said no'));
    await expire('flaky');
    await leaseOne(); // lease 2: lease 1 ended in the worker's error, which stays
    await expire('flaky');
    const third = await leaseOne(); // lease 2 lapsed
    expect(third.retryCount).toBe(3);
    const attempts = await t.operate('q').attempts('flaky');
    expect(attempts.map((a) => [a.attempt, a.outcome, a.error])).toEqual([
      [2, 'lapsed', null],
      [1, 'failed', 'TypeError: upstream said no'],
    ]);
    expect(attempts[0]!.endedUsec).toBeGreaterThan(0);
  });

  it(`keeps the last ${ATTEMPTS_KEPT} attempts of a task`, async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    await t.service.getQueue('q').add({ name: 'loop' });
    for (let i = 0; i < ATTEMPTS_KEPT + 4; i++) {
      await leaseOne();
      await expire('loop');
    }
    await leaseOne();
    const attempts = await t.operate('q').attempts('loop');
    expect(attempts.map((a) => a.attempt)).toEqual(
      Array.from({ length: ATTEMPTS_KEPT }, (_, i) => ATTEMPTS_KEPT + 4 - i),
    );
    expect(await t.sql(`select count(*)::int as n from ${t.schema}.task_attempts`)).toEqual([{ n: ATTEMPTS_KEPT }]);
  });

  it('cleanup drops the attempts of deleted tasks and keeps those of dead letters', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 2 })]));
    const q = t.service.getQueue('q');
    await q.add([{ name: 'done' }, { name: 'doomed' }]);
    for (const task of await q.leaseTasks({ lease: 60, maxTasks: 2 })) await q.failTask(task, 'nope');
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);
    const second = await q.leaseTasks({ lease: 60, maxTasks: 2 });
    await q.deleteTask(second.find((x) => x.name === 'done')!);
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);
    await q.leaseTasks({ lease: 60, maxTasks: 2 }); // doomed: out of leases, to the dead letters
    expect((await t.operate('q').listDeadLetters({ limit: 10 })).map((d) => d.name)).toEqual(['doomed']);
    const result = (await t.service.runCleanup()) as { attemptsRemoved: number };
    expect(result.attemptsRemoved).toBe(1);
    expect((await t.operate('q').attempts('done')).length).toBe(0);
    // Lease 2 lapsed, and the lease that found it out of leases recorded it.
    expect((await t.operate('q').attempts('doomed')).map((a) => [a.attempt, a.outcome])).toEqual([
      [2, 'lapsed'],
      [1, 'failed'],
    ]);
  });

  it('records the last lease of a task the retry limit sends to the dead letters, keeping its worker error', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 2 })]));
    const q = t.service.getQueue('q');
    await q.add([{ name: 'silent' }, { name: 'loud' }]);
    for (let lease = 1; lease <= 2; lease++) {
      for (const task of await q.leaseTasks({ lease: 60, maxTasks: 2 })) {
        if (task.name === 'loud' && lease === 2) await q.failTask(task, 'last words');
      }
      await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);
    }
    expect(await q.leaseTasks({ lease: 60, maxTasks: 2 })).toEqual([]);
    const ops = t.operate('q');
    expect((await ops.listDeadLetters({ limit: 10 })).map((d) => d.name).sort()).toEqual(['loud', 'silent']);
    expect((await ops.attempts('silent')).map((a) => [a.attempt, a.outcome, a.error])).toEqual([
      [2, 'lapsed', null],
      [1, 'lapsed', null],
    ]);
    expect((await ops.attempts('loud')).map((a) => [a.attempt, a.outcome, a.error])).toEqual([
      [2, 'failed', 'last words'],
      [1, 'lapsed', null],
    ]);
  });

  it("the clean-up's sweep of attempts looks at ten batches a run, goes on where it stopped and starts over at the end", async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    await t.service.getQueue('q').add({ name: 'live' });
    const id = (await t.sql<{ id: number }>(`select id from ${t.schema}.queues where name = 'q'`))[0]!.id;
    // 30 attempts of a live task, oldest first, then 2 of tasks long gone.
    await t.sql(
      `insert into ${t.schema}.task_attempts (queue_id, task_name, attempt, outcome, ended_at)
       select $1, case when i <= 30 then 'live' else 'gone-' || i end, i, 'lapsed', now() - (100 - i) * interval '1 second'
         from generate_series(1, 32) i`,
      [id],
    );
    const ctx = { db: t.db, schema: t.schema };
    const sweep: AttemptSweep = new Map();
    // Batches of 2: the first run looks at 20 attempts, all of the live task's, and removes none.
    expect(await cleanupAttempts(ctx, { batchSize: 2 }, sweep)).toBe(0);
    expect(sweep.get('all')).toBeGreaterThan(0);
    // The second goes on from there, reaches the orphans and the end: the next starts over.
    expect(await cleanupAttempts(ctx, { batchSize: 2 }, sweep)).toBe(2);
    expect(sweep.has('all')).toBe(false);
    expect(await t.sql(`select count(*)::int as n from ${t.schema}.task_attempts`)).toEqual([{ n: 30 }]);
    expect(await cleanupAttempts(ctx, { batchSize: 100 }, sweep)).toBe(0);
  });

  it('runs named tasks now: delayed and leased ones become available, with one audit entry', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    await q.add([{ name: 'later', countdownSeconds: 3600 }, { name: 'held', countdownSeconds: 0 }, { name: 'due' }]);
    await q.leaseTasks({ lease: 3600, maxTasks: 1 });
    const result = await t.operate('q').runNow({ names: ['later', 'held', 'due', 'gone'] });
    expect([...result.names].sort()).toEqual(['held', 'later']);
    expect(result.count).toBe(2);
    const leased = await q.leaseTasks({ lease: 60, maxTasks: 10 });
    expect(leased.map((x) => x.name).sort()).toEqual(['due', 'held', 'later']);
    expect(await t.sql(`select action, queue, count, target, source from ${t.schema}.audit_log`)).toEqual([
      { action: 'run_now', queue: 'q', count: 2, target: null, source: 'test' },
    ]);
  });

  it('runs all matching a filter now, a batch at a time, and says how many', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    await q.add(
      Array.from({ length: 30 }, (_, i) => ({ name: `a${i}`, tag: i % 2 ? 'odd' : 'even', countdownSeconds: 600 })),
    );
    const result = await t.operate('q').runNow({ filter: { state: 'delayed', tag: 'odd' } });
    expect(result.count).toBe(15);
    const due = await t.sql<{ n: number }>(`select count(*)::int as n from ${t.schema}.tasks where eta <= now()`);
    expect(due).toEqual([{ n: 15 }]);
    expect(await t.sql(`select action, count from ${t.schema}.audit_log`)).toEqual([{ action: 'run_now', count: 15 }]);
    await expect(t.operate('q').runNow({ filter: { state: 'available' as 'leased' } })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });

  it('counts long leases (more than 15 minutes still to run) in the overview', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    const q = t.service.getQueue('q');
    await q.add([{ name: 'short' }, { name: 'long' }, { name: 'later', countdownSeconds: 7200 }]);
    await q.leaseTasks({ lease: 60, maxTasks: 1 });
    await q.leaseTasks({ lease: 3600, maxTasks: 1 });
    const [overview] = await t.service.overview(['q']);
    expect(overview).toMatchObject({ leasedTasks: 2, delayedTasks: 1, longLeases: 1 });
  });
});
