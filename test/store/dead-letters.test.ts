import { afterEach, describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { operatorOf } from '../helpers/operator-of.js';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    if (isQueueError(error)) return error.code;
    throw error;
  }
}

/** Every byte value, twice, so nothing (NUL, high bytes) can be mangled unnoticed. */
const BINARY = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));

describe.each(ENGINES)('dead letters on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  const expireAll = () => t.sql(`update ${t.schema}.tasks set eta = eta - interval '8 days'`);
  const dbNowUsec = async () =>
    Number((await t.sql<{ n: string }>(`select (extract(epoch from now()) * 1000000)::int8::text as n`))[0]!.n);

  /** Adds the tasks, then leases and lets the leases lapse until the retry limit (2) drops them. */
  const killAll = async (names: string[]) => {
    const q = t.service.getQueue('q');
    for (let round = 0; round < 3; round++) {
      await q.leaseTasks({ lease: 60, maxTasks: 100 });
      await expireAll();
    }
    expect(await t.sql(`select name from ${t.schema}.tasks where name = any($1)`, [names])).toEqual([]);
  };

  it('keeps a task dropped by the retry limit: payload byte for byte, tag, retry count, times', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 2 })]));
    const q = t.service.getQueue('q');
    const added = await q.add({ name: 'doomed', payload: BINARY, tag: 'tägged' });
    await q.add({ name: 'fine', payload: 'ok' });
    await q.leaseTasks({ lease: 60, maxTasks: 10 });
    await expireAll();
    await q.leaseTasks({ lease: 60, maxTasks: 1 }); // doomed, second lease
    await expireAll();
    const before = await dbNowUsec();
    const third = await q.leaseTasks({ lease: 60, maxTasks: 10 });
    expect(third.map((x) => x.name)).toEqual(['fine']);

    const [dead, ...more] = await operatorOf(q).listDeadLetters({ limit: 10 });
    expect(more).toEqual([]);
    expect(dead!.name).toBe('doomed');
    expect(dead!.queueName).toBe('q');
    expect(Buffer.compare(dead!.payload, BINARY)).toBe(0);
    expect(dead!.tag).toBe('tägged');
    expect(dead!.retryCount).toBe(2);
    expect(dead!.enqueuedUsec).toBe(added.enqueuedUsec);
    expect(dead!.diedUsec).toBeGreaterThanOrEqual(before);
    expect(dead!.diedUsec).toBeLessThan(before + 60_000_000);
    // Still tombstoned, as before dead letters existed.
    expect(await codeOf(q.add({ name: 'doomed' }))).toBe('TOMBSTONED_TASK');
    expect(await t.sql(`select reason from ${t.schema}.task_tombstones where name = 'doomed'`)).toEqual([
      { reason: 'retry_limit' },
    ]);
    // Dead letters do not count as stored tasks.
    expect((await q.fetchStatistics()).totalTasks).toBe(1);
  });

  it('lists dead letters a page at a time, oldest death first', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 2 })]));
    const q = t.service.getQueue('q');
    const names = ['d1', 'd2', 'd3', 'd4', 'd5'];
    await q.add(names.map((name) => ({ name })));
    await killAll(names);
    // Spread the deaths out: d5 died first, then d4, ...
    for (const [i, name] of names.entries()) {
      await t.sql(
        `update ${t.schema}.task_dead_letters set died_at = died_at - $1 * interval '1 minute' where name = $2`,
        [i, name],
      );
    }
    const first = await operatorOf(q).listDeadLetters({ limit: 2 });
    expect(first.map((d) => d.name)).toEqual(['d5', 'd4']);
    const second = await operatorOf(q).listDeadLetters({ limit: 2, after: first[1]! });
    expect(second.map((d) => d.name)).toEqual(['d3', 'd2']);
    const third = await operatorOf(q).listDeadLetters({ limit: 2, after: second[1]! });
    expect(third.map((d) => d.name)).toEqual(['d1']);
    expect(await codeOf(operatorOf(q).listDeadLetters({ limit: 1001 }))).toBe('INVALID_REQUEST');
  });

  it('redrive puts dead letters back under the same name, tombstone gone, retry count reset', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 2 })]));
    const q = t.service.getQueue('q');
    await q.add([
      { name: 'a', payload: BINARY, tag: 'x' },
      { name: 'b', payload: 'bee' },
      { name: 'c', payload: 'sea' },
    ]);
    await killAll(['a', 'b', 'c']);
    expect((await operatorOf(q).listDeadLetters({ limit: 10 })).length).toBe(3);

    expect(await operatorOf(q).redrive(['a', 'nope'])).toBe(1);
    expect(await operatorOf(q).redrive([])).toBe(0);
    const [back] = await q.leaseTasks({ lease: 60, maxTasks: 10 });
    expect(back!.name).toBe('a');
    expect(back!.retryCount).toBe(1); // reset to 0, leased once since
    expect(back!.tag).toBe('x');
    expect(Buffer.compare(back!.payload, BINARY)).toBe(0);
    expect(await t.sql(`select name from ${t.schema}.task_tombstones order by name`)).toEqual([
      { name: 'b' },
      { name: 'c' },
    ]);
    expect((await operatorOf(q).listDeadLetters({ limit: 10 })).map((d) => d.name).sort()).toEqual(['b', 'c']);

    // All of the queue's; a second redrive finds none.
    expect(await operatorOf(q).redrive()).toBe(2);
    expect(await operatorOf(q).redrive()).toBe(0);
    expect(await operatorOf(q).listDeadLetters({ limit: 10 })).toEqual([]);
    const stats = await q.fetchStatistics();
    expect([stats.totalTasks, stats.totalBytes]).toEqual([
      3,
      BINARY.length + 'a'.length + 'x'.length + 'bee'.length + 'b'.length + 'sea'.length + 'c'.length,
    ]);
    // Redriven tasks are ordinary tasks: they can be deleted (and tombstoned) again.
    expect(await q.deleteTask(['b', 'c'])).toEqual([true, true]);
    expect(await codeOf(operatorOf(q).redrive(['bad name!']))).toBe('INVALID_TASK_NAME');
  });

  it('deletes dead letters by name for good, with one audit entry counting them; their names stay held', async () => {
    t = await openTestService(
      engine,
      serviceConfig([pullQueue('q', { maxLeases: 2 }), pullQueue('other', { maxLeases: 2 })]),
    );
    const q = t.service.getQueue('q');
    await q.add([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    await killAll(['a', 'b', 'c']);
    const other = t.service.getQueue('other');
    await other.add({ name: 'a' });
    for (let round = 0; round < 3; round++) {
      await other.leaseTasks({ lease: 60, maxTasks: 10 });
      await expireAll();
    }
    const ops = t.operate('q');
    expect(await ops.deleteDeadLetters(['a', 'b', 'a', 'nope'])).toBe(2);
    expect(await ops.deleteDeadLetters(['a'])).toBe(0);
    expect(await ops.deleteDeadLetters([])).toBe(0);
    expect(await codeOf(ops.deleteDeadLetters(['bad name!']))).toBe('INVALID_TASK_NAME');
    expect((await ops.listDeadLetters({ limit: 10 })).map((d) => d.name)).toEqual(['c']);
    // Another queue's dead letter of the same name is untouched.
    expect((await t.operate('other').listDeadLetters({ limit: 10 })).map((d) => d.name)).toEqual(['a']);
    // The names stay held: an add of one is refused until its tombstone expires.
    expect(await codeOf(q.add({ name: 'a' }))).toBe('TOMBSTONED_TASK');
    expect(await operatorOf(q).redrive(['a', 'b'])).toBe(0);
    const entries = await t.sql<{ action: string; target: string | null; count: number }>(
      `select action, target, count from ${t.schema}.audit_log where action = 'delete_dead_letters' order by id`,
    );
    expect(entries).toEqual([
      { action: 'delete_dead_letters', target: null, count: 2 },
      { action: 'delete_dead_letters', target: 'a', count: 0 },
    ]);
  });

  it('redrive is refused whole by a storage limit, and by a name that is live again', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 1, storageLimitBytes: 1000 })]));
    const q = t.service.getQueue('q');
    await q.add([
      { name: 'big', payload: 'x'.repeat(600) },
      { name: 'small', payload: 's' },
    ]);
    await killAll(['big', 'small']);
    await q.add({ name: 'filler', payload: 'f'.repeat(500) });

    expect(await codeOf(operatorOf(q).redrive())).toBe('STORAGE_LIMIT_EXCEEDED');
    expect((await operatorOf(q).listDeadLetters({ limit: 10 })).map((d) => d.name).sort()).toEqual(['big', 'small']);
    expect(await t.sql(`select name from ${t.schema}.task_tombstones order by name`)).toEqual([
      { name: 'big' },
      { name: 'small' },
    ]);
    expect(await operatorOf(q).redrive(['small'])).toBe(1);

    // 'big' re-added after its tombstone went (as after the retention period): redrive cannot clobber it.
    await q.deleteTask('filler');
    await t.sql(`delete from ${t.schema}.task_tombstones where name = 'big'`);
    await q.add({ name: 'big', payload: 'new' });
    expect(await codeOf(operatorOf(q).redrive(['big']))).toBe('TASK_ALREADY_EXISTS');
    expect((await q.getTask('big')).payload.toString()).toBe('new');
    expect((await operatorOf(q).listDeadLetters({ limit: 10 })).map((d) => d.name)).toEqual(['big']);
  });

  it('the cleanup job removes dead letters past the retention period', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 1 })]), { deadLetterDays: 2 });
    const q = t.service.getQueue('q');
    await q.add([{ name: 'old' }, { name: 'young' }]);
    await killAll(['old', 'young']);
    await t.sql(
      `update ${t.schema}.task_dead_letters set died_at = now() - interval '2 days 1 minute' where name = 'old'`,
    );
    await t.sql(
      `update ${t.schema}.task_dead_letters set died_at = now() - interval '1 day 23 hours' where name = 'young'`,
    );
    const result = (await t.service.runCleanup()) as { deadLettersRemoved: number };
    expect(result.deadLettersRemoved).toBe(1);
    expect((await operatorOf(q).listDeadLetters({ limit: 10 })).map((d) => d.name)).toEqual(['young']);
  });

  it('a name that dies again replaces its older dead letter', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 1 })]));
    const q = t.service.getQueue('q');
    await q.add({ name: 'twice', payload: 'first' });
    await killAll(['twice']);
    await t.sql(`delete from ${t.schema}.task_tombstones`);
    await q.add({ name: 'twice', payload: 'second' });
    await killAll(['twice']);
    const dead = await operatorOf(q).listDeadLetters({ limit: 10 });
    expect(dead.map((d) => [d.name, d.payload.toString()])).toEqual([['twice', 'second']]);
  });
});
